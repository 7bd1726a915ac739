import { useState } from 'preact/hooks';
import { useAction } from '#web/app/hooks.ts';
import { t } from '#web/app/i18n.ts';
import { api } from '#web/app/session/session.ts';
import { ErrorMessage } from '#web/shared/form.tsx';

/**
 * The expiry calendar's subscription link (POST /api/inventory/calendar-key): a new key each
 * time, which stops the link made before, for every member of the household.
 */
export function CalendarLink() {
  const [url, setUrl] = useState<string | null>(null);
  const action = useAction();
  const make = () =>
    void action.run(async () => {
      const made = await api<{ key: string; url: string }>('POST', '/api/inventory/calendar-key');
      setUrl(made.url);
    });
  return (
    <section class="card" aria-labelledby="calendar-title">
      <h2 id="calendar-title">{t('household.calendar')}</h2>
      <p class="hint">{t('household.calendarHint')}</p>
      <button type="button" disabled={action.busy} onClick={make}>
        {url ? t('household.calendarRenew') : t('household.calendarMake')}
      </button>
      {url && (
        <>
          <label for="calendar-url">{t('household.calendarUrl')}</label>
          <input
            id="calendar-url"
            type="url"
            readOnly
            value={url}
            onFocus={(e) => e.currentTarget.select()}
          />
          <p role="status">{t('household.calendarMade')}</p>
        </>
      )}
      <ErrorMessage message={action.error} />
    </section>
  );
}
