import { useState } from 'preact/hooks';
import type { BackupEntry } from '#web/admin/api/types.ts';
import { DownloadAndDelete, useDownload } from '#web/admin/components/download.tsx';
import { BusyButton, Loading } from '#web/admin/components/ui.tsx';
import { useFeedback } from '#web/admin/feedback.ts';
import { formatBytes, formatDateTime } from '#web/admin/format.ts';
import { useAction, useLoad } from '#web/admin/hooks.ts';
import { t } from '#web/admin/i18n.ts';
import { Facts } from '#web/shared/Facts.tsx';
import { ErrorMessage } from '#web/shared/form.tsx';
import {
  backupInfo,
  backupPath,
  createBackup,
  deleteBackup,
  listBackups,
  verifyBackup,
} from './backups.api.ts';

function interval(seconds: number): string {
  if (seconds === 0) return t('backups.noSchedule');
  if (seconds % 86400 === 0) return t('backups.everyDays', { count: seconds / 86400 });
  if (seconds % 3600 === 0) return t('backups.everyHours', { count: seconds / 3600 });
  return t('backups.everyMinutes', { count: Math.round(seconds / 60) });
}

/** Whether a backup's restore drill passed (and when), failed (and why) or never ran. */
function Verification({ entry }: { entry: BackupEntry }) {
  if (entry.verifyError !== null) {
    return (
      <p class="verification failed">
        <strong>{t('backups.verifyFailed')}</strong> {entry.verifyError}
      </p>
    );
  }
  if (entry.verifiedAt !== null) {
    return (
      <p class="verification ok">
        {t('backups.verifiedAt', { date: formatDateTime(entry.verifiedAt) })}
      </p>
    );
  }
  return <p class="verification muted">{t('backups.notVerified')}</p>;
}

/**
 * Backups: where and how often, newest first, whether each one restores, create one now, verify
 * again, download, delete; how to restore.
 */
export function BackupsTab() {
  const feedback = useFeedback();
  const list = useLoad(() => Promise.all([listBackups(), backupInfo()]), [feedback.revision]);
  const create = useAction();
  const remove = useAction();
  const check = useAction();
  const [checking, setChecking] = useState<string | null>(null);
  const download = useDownload();
  const [entries, info] = list.data ?? [[], null];
  const backups = [...entries].sort((a, b) => b.createdAt - a.createdAt);

  const createNow = async () => {
    let entry: BackupEntry | null = null;
    const ok = await create.run(async () => {
      entry = await createBackup();
    });
    if (ok && entry) feedback.changed(t('backups.written', { name: (entry as BackupEntry).name }));
  };

  const del = async (name: string) => {
    const ok = await remove.run(() => deleteBackup(name));
    if (ok) feedback.changed(t('backups.deleted', { name }));
  };

  const verify = async (name: string) => {
    setChecking(name);
    let entry: BackupEntry | null = null;
    const ok = await check.run(async () => {
      entry = await verifyBackup(name);
    });
    setChecking(null);
    if (ok && entry) {
      const { verifyError } = entry as BackupEntry;
      feedback.changed(
        verifyError === null
          ? t('backups.verifyPassed', { name })
          : t('backups.verifyFailedName', { name }),
      );
    }
  };

  return (
    <div class="backups">
      <div class="section-head">
        <h2>
          {t('backups.title')} <span class="count">({backups.length})</span>
        </h2>
        <BusyButton
          class="primary"
          busy={create.busy}
          label={t('backups.createNow')}
          busyLabel={t('backups.writing')}
          onClick={() => void createNow()}
        />
      </div>
      {info && (
        <Facts
          class="backup-info"
          facts={[
            [t('backups.location'), <code>{info.directory}</code>],
            [t('backups.schedule'), interval(info.intervalSeconds)],
            [t('backups.retention'), t('backups.keeps', { count: info.keep })],
          ]}
        />
      )}
      <p class="notice">{t('backups.notIncluded')}</p>
      <details class="restore-hint">
        <summary>{t('backups.restoreTitle')}</summary>
        <p>{t('backups.restoreText')}</p>
        <pre>
          <code>npx larder restore {info?.directory ?? '/backups'}/larder-….sql.gz</code>
        </pre>
      </details>
      <ErrorMessage
        message={create.error ?? remove.error ?? check.error ?? list.error ?? download.error}
      />
      {list.loading && !list.data && <Loading />}
      {list.data && backups.length === 0 && <p class="muted">{t('backups.none')}</p>}
      <ul class="rows" aria-label={t('backups.title')}>
        {backups.map((b) => (
          <li
            class={`row backup${b.verifyError !== null ? ' verify-failed' : ''}`}
            key={b.name}
            data-name={b.name}
          >
            <div>
              <strong class="name">{b.name}</strong>
              <p class="muted">
                {formatDateTime(b.createdAt)} · {formatBytes(b.sizeBytes)}
              </p>
              <Verification entry={b} />
            </div>
            <div class="actions">
              <BusyButton
                busy={checking === b.name}
                disabled={checking !== null}
                label={t('backups.verify')}
                busyLabel={t('backups.verifying')}
                ariaLabel={t('backups.verifyName', { name: b.name })}
                onClick={() => void verify(b.name)}
              />
              <DownloadAndDelete
                texts="backups"
                vars={{ name: b.name }}
                busy={remove.busy}
                onDownload={() => download.start(backupPath(b.name), b.name)}
                onDelete={() => void del(b.name)}
              />
            </div>
          </li>
        ))}
      </ul>
    </div>
  );
}
