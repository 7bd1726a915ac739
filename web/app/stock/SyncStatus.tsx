import { t } from '#web/app/i18n.ts';
import type { ReplicaView } from './replica.ts';

/**
 * The queue's status line (role="status", announced by screen readers): "N changes waiting"
 * while edits are not on the server, whether the device is offline, and a failure's reason.
 */
export function SyncStatus({ view }: { view: ReplicaView }) {
  let text = '';
  if (view.waiting > 0) {
    text = t('household.waiting', { count: view.waiting });
    if (view.state === 'offline') text += ` · ${t('household.offline')}`;
  } else if (view.state === 'offline') {
    text = t('household.offline');
  }
  return (
    <p class={`sync-status ${view.state}`} role="status">
      {text}
      {view.state === 'failed' && view.error && (
        <span class="sync-error">
          {' '}
          {t('household.syncFailed')} ({view.error})
        </span>
      )}
    </p>
  );
}
