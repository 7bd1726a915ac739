import { useState } from 'preact/hooks';
import type { Resource, TagSuggestion } from '#web/admin/api/types.ts';
import { Submit } from '#web/admin/components/form.tsx';
import { Field, ProgressBar } from '#web/admin/components/ui.tsx';
import { useAction } from '#web/admin/hooks.ts';
import { ErrorMessage } from '#web/shared/form.tsx';
import { MetadataFields, metadataOf, toWire, type Metadata } from './MetadataFields.tsx';
import { MAX_UPLOAD_BYTES, tooLarge } from './limits.ts';
import { t } from '#web/admin/i18n.ts';
import { uploadResource } from './resources.api.ts';

const EMPTY = metadataOf({ title: '', description: '', tags: [] });

/** Upload one file (EPUB, PDF, ZIP, 7z) with metadata typed in by hand. */
export function ManualUpload(props: {
  suggestions: TagSuggestion[];
  onUploaded: (resource: Resource) => void;
}) {
  const [meta, setMeta] = useState<Metadata>(EMPTY);
  const [file, setFile] = useState<File | null>(null);
  const [progress, setProgress] = useState(0);
  const [done, setDone] = useState<string | null>(null);
  const action = useAction();

  const submit = async (event: Event) => {
    event.preventDefault();
    if (!file) return;
    setDone(null);
    if (file.size > MAX_UPLOAD_BYTES) {
      await action.run(() => Promise.reject(new Error(tooLarge(file))));
      return;
    }
    setProgress(0);
    const form = new FormData();
    const metadata = {
      guid: '',
      downloadUrl: '',
      fileSize: 0,
      createdAt: 0,
      updatedAt: 0,
      fileFormat: file.name.split('.').pop()?.toLowerCase() ?? '',
      mimeType: file.type || 'application/octet-stream',
      ...toWire(meta),
    };
    // metadata first: the server reads the parts in order while streaming the file to disk
    form.append('metadata', JSON.stringify(metadata));
    form.append('file', file, file.name);
    let stored: Resource | null = null;
    const target = event.target as HTMLFormElement;
    const ok = await action.run(async () => {
      stored = await uploadResource(form, (sent, total) => setProgress(sent / total));
    });
    if (ok && stored) {
      setDone((stored as Resource).title);
      setMeta(EMPTY);
      setFile(null);
      target.reset();
      props.onUploaded(stored);
    }
  };

  return (
    <form class="manual" onSubmit={(e) => void submit(e)} aria-label={t('resources.modeManual')}>
      <Field label={t('resources.file')} id="manual-file" hint={t('resources.manualHint')}>
        <input
          id="manual-file"
          type="file"
          required
          accept=".epub,.pdf,.zip,.7z"
          aria-describedby="manual-file-hint"
          onChange={(e) => setFile(e.currentTarget.files?.[0] ?? null)}
        />
      </Field>
      <MetadataFields
        idPrefix="manual"
        value={meta}
        suggestions={props.suggestions}
        onChange={setMeta}
      />
      {action.busy && <ProgressBar value={progress} label={t('resources.progress')} />}
      <ErrorMessage message={action.error} />
      {done && (
        <p class="success" role="status">
          {t('resources.uploaded', { title: done })}
        </p>
      )}
      <Submit action={action} label={t('resources.upload')} busyLabel={t('resources.uploading')} />
    </form>
  );
}
