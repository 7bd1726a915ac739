import { useState } from 'preact/hooks';
import { api, downloadWithToken } from '../api/client.ts';
import type { Resource } from '../api/types.ts';
import { ConfirmButton, ErrorMessage } from '../components/ui.tsx';
import { errorMessage, formatBytes, formatDate } from '../format.ts';
import { useAction } from '../hooks.ts';
import { Markdown } from './Markdown.tsx';

/** One catalog entry: facts, tags, description (rendered safely), download and delete. */
export function ResourceCard(props: { resource: Resource; onDeleted: () => void }) {
  const r = props.resource;
  const action = useAction();
  const [downloadError, setDownloadError] = useState<string | null>(null);
  const filename = `${r.title.replace(/[\\/:*?"<>|]+/g, '_').slice(0, 120) || r.guid}.${r.fileFormat}`;

  const download = () => {
    setDownloadError(null);
    downloadWithToken(`/api/resources/${encodeURIComponent(r.guid)}/download`, filename).catch(
      (err) => setDownloadError(errorMessage(err)),
    );
  };
  const remove = async () => {
    if (
      await action.run(() => api('DELETE', `/api/admin/resources/${encodeURIComponent(r.guid)}`))
    ) {
      props.onDeleted();
    }
  };

  return (
    <li class="card resource" data-guid={r.guid}>
      <div class="card-head">
        <h3>{r.title}</h3>
        <span class="badge">{r.fileFormat}</span>
      </div>
      <p class="muted">
        {[r.author, r.edition, r.language, r.releaseDate, formatBytes(r.fileSize)]
          .filter(Boolean)
          .join(' · ')}
        {' · added '}
        {formatDate(r.createdAt)}
      </p>
      {r.tags.length > 0 && (
        <ul class="chips" aria-label="Tags">
          {r.tags.map((t) => (
            <li key={t}>{t}</li>
          ))}
        </ul>
      )}
      {r.description.trim() && (
        <details>
          <summary>Description</summary>
          <Markdown text={r.description} />
        </details>
      )}
      <div class="actions">
        <button type="button" onClick={download} aria-label={`Download ${r.title}`}>
          Download
        </button>
        <ConfirmButton
          label="Delete"
          question={`Delete “${r.title}”?`}
          busy={action.busy}
          onConfirm={() => void remove()}
        />
      </div>
      <ErrorMessage message={action.error ?? downloadError} />
    </li>
  );
}
