import type { SignedInSession as SignedInDevice } from '#web/admin/api/types.ts';
import { BusyButton, Loading } from '#web/admin/components/ui.tsx';
import { useFeedback } from '#web/admin/feedback.ts';
import { formatDateTime } from '#web/admin/format.ts';
import { useAction, useLoad } from '#web/admin/hooks.ts';
import { t } from '#web/admin/i18n.ts';
import { ErrorMessage } from '#web/shared/form.tsx';
import { endSession, listSessions } from './account.api.ts';

/** The admin's signed-in devices, each with a sign-out button (this one excepted). */
export function Sessions() {
  const feedback = useFeedback();
  const list = useLoad(() => listSessions(), [feedback.revision]);
  const action = useAction();
  const sessions = [...(list.data ?? [])].sort(
    (a, b) => Number(b.current) - Number(a.current) || (b.lastUsedAt ?? 0) - (a.lastUsedAt ?? 0),
  );

  const signOut = async (session: SignedInDevice) => {
    const ok = await action.run(() => endSession(session.id));
    if (ok) feedback.changed(t('account.deviceSignedOut'));
  };

  return (
    <section class="card sessions" aria-labelledby="sessions-title">
      <h3 id="sessions-title">{t('account.devices')}</h3>
      <ErrorMessage message={list.error ?? action.error} />
      {list.loading && !list.data && <Loading />}
      <ul class="rows" aria-label={t('account.devices')}>
        {sessions.map((s) => (
          <li class="row session" key={s.id}>
            <div>
              <strong>{s.userAgent || t('account.unknownDevice')}</strong>
              {s.current && <span class="badge">{t('account.thisDevice')}</span>}
              <p class="muted">
                {t('account.deviceFacts', {
                  address: s.address ?? '—',
                  created: formatDateTime(s.createdAt),
                  used: formatDateTime(s.lastUsedAt),
                })}
              </p>
            </div>
            {!s.current && (
              <BusyButton
                busy={action.busy}
                label={t('account.signOutDevice')}
                onClick={() => void signOut(s)}
              />
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}
