import { useEffect, useState } from 'preact/hooks';
import type { components } from '#web/shared/api/openapi.ts';
import { useAction } from '#web/app/hooks.ts';
import { locale, t } from '#web/app/i18n.ts';
import { api, isOnline } from '#web/app/session/session.ts';
import { ErrorMessage } from '#web/shared/form.tsx';

type SignedIn = components['schemas']['Session'];

const when = (ms: number) =>
  new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' }).format(ms);

/** The devices signed in to this account; any other one can be signed out from here. */
export function Sessions() {
  const [sessions, setSessions] = useState<SignedIn[] | null>(null);
  const action = useAction();
  const load = () =>
    action.run(async () => setSessions(await api<SignedIn[]>('GET', '/api/auth/sessions')));
  useEffect(() => {
    if (isOnline()) void load();
  }, []);
  return (
    <section class="card" aria-labelledby="sessions-title">
      <h2 id="sessions-title">{t('account.devices')}</h2>
      {!isOnline() && <p>{t('household.needsConnection')}</p>}
      {sessions && (
        <ul class="sessions" aria-labelledby="sessions-title">
          {sessions.map((s) => (
            <li key={s.id}>
              <span>
                {s.userAgent ?? '—'}
                {s.current && ` (${t('account.thisDevice')})`}
              </span>
              <span class="meta">{when(s.lastUsedAt)}</span>
              {!s.current && (
                <button
                  type="button"
                  disabled={action.busy}
                  onClick={() =>
                    void action.run(async () => {
                      await api('DELETE', `/api/auth/sessions/${encodeURIComponent(s.id)}`);
                      setSessions(await api<SignedIn[]>('GET', '/api/auth/sessions'));
                    })
                  }
                >
                  {t('household.endSession')}
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      <ErrorMessage message={action.error} />
    </section>
  );
}
