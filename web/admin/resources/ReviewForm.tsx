import { useState } from 'preact/hooks';
import type { AnalyzedResource, Resource, TagSuggestion } from '#web/admin/api/types.ts';
import { FormActions } from '#web/admin/components/form.tsx';
import { formatBytes } from '#web/admin/format.ts';
import { useAction } from '#web/admin/hooks.ts';
import { MetadataFields, metadataOf, toWire } from './MetadataFields.tsx';
import { t } from '#web/admin/i18n.ts';
import { confirmAnalyzed } from './resources.api.ts';

/** One analyzed file: extracted metadata to review, then confirm into the catalog. */
export function ReviewForm(props: {
  analyzed: AnalyzedResource;
  /** the archive this file was found in, when it came out of one */
  source: string | null;
  index: number;
  suggestions: TagSuggestion[];
  onConfirmed: (resource: Resource) => void;
  onDiscard: () => void;
}) {
  const a = props.analyzed;
  const [meta, setMeta] = useState(() => metadataOf(a));
  const action = useAction();

  const confirm = async (event: Event) => {
    event.preventDefault();
    let stored: Resource | null = null;
    const ok = await action.run(async () => {
      stored = await confirmAnalyzed(a, toWire(meta));
    });
    if (ok && stored) props.onConfirmed(stored);
  };

  return (
    <form
      class="card review"
      onSubmit={(e) => void confirm(e)}
      aria-label={t('resources.review', { name: a.filename })}
    >
      <div class="card-head">
        <h3>{a.filename}</h3>
        <span class="badge">{a.fileFormat}</span>
        <span class="muted">{formatBytes(a.fileSize)}</span>
      </div>
      {props.source && (
        <p class="muted source">{t('resources.fromArchive', { archive: props.source })}</p>
      )}
      {a.notes.map((note) => (
        <p class="notice" key={note}>
          {note}
        </p>
      ))}
      <MetadataFields
        idPrefix={`review-${props.index}`}
        value={meta}
        suggestions={props.suggestions}
        onChange={setMeta}
      />
      <FormActions
        action={action}
        submit={t('resources.addToCatalog')}
        busyLabel={t('resources.adding')}
        cancel={t('resources.discard')}
        onCancel={props.onDiscard}
      />
    </form>
  );
}
