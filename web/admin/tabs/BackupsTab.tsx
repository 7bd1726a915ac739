import { useState } from 'preact/hooks';
import { api, downloadWithToken } from '../api/client.ts';
import type { BackupEntry } from '../api/types.ts';
import { BusyButton, ErrorMessage, Loading } from '../components/ui.tsx';
import { errorMessage, formatBytes, formatDateTime } from '../format.ts';
import { useAction, useLoad } from '../hooks.ts';

/** Backups: newest first, create one now, download. */
export function BackupsTab() {
  const list = useLoad(() => api<BackupEntry[]>('GET', '/api/admin/backups'), []);
  const create = useAction();
  const [created, setCreated] = useState<string | null>(null);
  const [downloadError, setDownloadError] = useState<string | null>(null);
  const backups = [...(list.data ?? [])].sort((a, b) => b.createdAt - a.createdAt);

  const createNow = async () => {
    setCreated(null);
    let entry: BackupEntry | null = null;
    const ok = await create.run(async () => {
      entry = await api<BackupEntry>('POST', '/api/admin/backups');
    });
    if (ok && entry) setCreated((entry as BackupEntry).name);
    list.reload();
  };

  const download = (name: string) => {
    setDownloadError(null);
    downloadWithToken(`/api/admin/backups/${encodeURIComponent(name)}`, name).catch((err) =>
      setDownloadError(errorMessage(err)),
    );
  };

  return (
    <div class="backups">
      <div class="section-head">
        <h2>
          Backups <span class="count">({backups.length})</span>
        </h2>
        <BusyButton
          class="primary"
          busy={create.busy}
          label="Create a backup now"
          busyLabel="Writing backup…"
          onClick={() => void createNow()}
        />
      </div>
      <ErrorMessage message={create.error ?? list.error ?? downloadError} />
      {created && (
        <p class="success" role="status">
          Backup {created} written.
        </p>
      )}
      {list.loading && !list.data && <Loading />}
      {list.data && backups.length === 0 && <p class="muted">No backups yet.</p>}
      <ul class="cards compact" aria-label="Backups">
        {backups.map((b) => (
          <li class="card backup" key={b.name}>
            <div>
              <strong class="name">{b.name}</strong>
              <p class="muted">
                {formatDateTime(b.createdAt)} · {formatBytes(b.sizeBytes)}
              </p>
            </div>
            <button
              type="button"
              onClick={() => download(b.name)}
              aria-label={`Download ${b.name}`}
            >
              Download
            </button>
          </li>
        ))}
      </ul>
    </div>
  );
}
