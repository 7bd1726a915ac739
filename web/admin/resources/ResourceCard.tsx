import { useState } from 'preact/hooks';
import type { Resource, TagSuggestion } from '#web/admin/api/types.ts';
import { DownloadAndDelete, useDownload } from '#web/admin/components/download.tsx';
import { FormActions } from '#web/admin/components/form.tsx';
import { formatBytes, formatDate } from '#web/admin/format.ts';
import { useAction } from '#web/admin/hooks.ts';
import { t } from '#web/admin/i18n.ts';
import { ErrorMessage } from '#web/shared/form.tsx';
import { Markdown } from './Markdown.tsx';
import { MetadataFields, metadataOf, toWire, type Metadata } from './MetadataFields.tsx';
import { deleteResource, downloadPath, updateResource } from './resources.api.ts';

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
  const download = useDownload();
  const filename = `${r.title.replace(/[\\/:*?"<>|]+/g, '_').slice(0, 120) || r.guid}.${r.fileFormat}`;

  const remove = async () => {
    if (await action.run(() => deleteResource(r.guid))) props.onChanged();
  };
  const save = async (event: Event) => {
    event.preventDefault();
    if (!editing) return;
    const body = toWire(editing);
    if (await action.run(() => updateResource(r.guid, body))) {
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
          <FormActions action={action} onCancel={() => setEditing(null)} />
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
            setEditing(metadataOf(r));
          }}
          aria-label={t('resources.editName', { title: r.title })}
        >
          {t('resources.edit')}
        </button>
        <DownloadAndDelete
          texts="resources"
          vars={{ title: r.title }}
          busy={action.busy}
          onDownload={() => download.start(downloadPath(r.guid), filename)}
          onDelete={() => void remove()}
        />
      </div>
      <ErrorMessage message={action.error ?? download.error} />
    </li>
  );
}
