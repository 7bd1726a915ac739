import { useState } from 'preact/hooks';
import { api, downloadWithToken } from '../api/client.ts';
import type { Resource, TagSuggestion } from '../api/types.ts';
import { BusyButton, ConfirmButton, ErrorMessage } from '../components/ui.tsx';
import { errorMessage, formatBytes, formatDate } from '../format.ts';
import { useAction } from '../hooks.ts';
import { t } from '../i18n.ts';
import { Markdown } from './Markdown.tsx';
import { MetadataFields, toWire, type Metadata } from './MetadataFields.tsx';

const toMetadata = (r: Resource): Metadata => ({
  title: r.title,
  description: r.description,
  author: r.author ?? '',
  tags: r.tags,
  language: r.language ?? '',
  edition: r.edition ?? '',
  releaseDate: r.releaseDate ?? '',
});

/** One catalog entry: facts, tags, description (rendered safely), edit in place, download, delete. */
export function ResourceCard(props: {
  resource: Resource;
  suggestions: TagSuggestion[];
  onChanged: () => void;
}) {
  const r = props.resource;
  const action = useAction();
  const [editing, setEditing] = useState<Metadata | null>(null);
  const [saved, setSaved] = useState(false);
  const [downloadError, setDownloadError] = useState<string | null>(null);
  const filename = `${r.title.replace(/[\\/:*?"<>|]+/g, '_').slice(0, 120) || r.guid}.${r.fileFormat}`;
  const url = `/api/admin/resources/${encodeURIComponent(r.guid)}`;

  const download = () => {
    setDownloadError(null);
    downloadWithToken(`/api/resources/${encodeURIComponent(r.guid)}/download`, filename).catch(
      (err) => setDownloadError(errorMessage(err)),
    );
  };
  const remove = async () => {
    if (await action.run(() => api('DELETE', url))) props.onChanged();
  };
  const save = async (event: Event) => {
    event.preventDefault();
    if (!editing) return;
    const body = toWire(editing);
    if (await action.run(() => api<Resource>('PATCH', url, body))) {
      setEditing(null);
      setSaved(true);
      props.onChanged();
    }
  };

  if (editing) {
    return (
      <li class="card resource editing" data-guid={r.guid}>
        <form
          onSubmit={(e) => void save(e)}
          aria-label={t('resources.editing', { title: r.title })}
        >
          <MetadataFields
            idPrefix={`edit-${r.guid}`}
            value={editing}
            suggestions={props.suggestions}
            onChange={setEditing}
          />
          <ErrorMessage message={action.error} />
          <div class="actions">
            <BusyButton
              type="submit"
              class="primary"
              busy={action.busy}
              label={t('common.save')}
              busyLabel={t('common.saving')}
            />
            <button type="button" onClick={() => setEditing(null)}>
              {t('common.cancel')}
            </button>
          </div>
        </form>
      </li>
    );
  }

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
        {' · '}
        {t('resources.addedOn', { date: formatDate(r.createdAt) })}
      </p>
      {r.tags.length > 0 && (
        <ul class="chips" aria-label={t('meta.tags')}>
          {r.tags.map((tag) => (
            <li key={tag}>{tag}</li>
          ))}
        </ul>
      )}
      {r.description.trim() && (
        <details>
          <summary>{t('meta.descriptionShort')}</summary>
          <Markdown text={r.description} />
        </details>
      )}
      {saved && (
        <p class="success" role="status">
          {t('resources.saved')}
        </p>
      )}
      <div class="actions">
        <button
          type="button"
          onClick={() => {
            setSaved(false);
            setEditing(toMetadata(r));
          }}
          aria-label={t('resources.editName', { title: r.title })}
        >
          {t('resources.edit')}
        </button>
        <button
          type="button"
          onClick={download}
          aria-label={t('resources.downloadName', { title: r.title })}
        >
          {t('resources.download')}
        </button>
        <ConfirmButton
          label={t('resources.delete')}
          question={t('resources.deleteQuestion', { title: r.title })}
          busy={action.busy}
          onConfirm={() => void remove()}
        />
      </div>
      <ErrorMessage message={action.error ?? downloadError} />
    </li>
  );
}
