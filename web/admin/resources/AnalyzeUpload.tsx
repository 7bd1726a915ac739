import { useState } from 'preact/hooks';
import type { AnalyzedResource, Resource, TagSuggestion } from '#web/admin/api/types.ts';
import { BusyButton, Field, ProgressBar } from '#web/admin/components/ui.tsx';
import { errorMessage } from '#web/admin/format.ts';
import { useAction } from '#web/admin/hooks.ts';
import { t } from '#web/admin/i18n.ts';
import { ErrorMessage } from '#web/shared/form.tsx';
import { MAX_UPLOAD_BYTES, tooLarge } from './limits.ts';
import { ReviewForm } from './ReviewForm.tsx';
import { analyzeFile, confirmAnalyzed } from './resources.api.ts';

const ANALYZE_ACCEPT = '.pdf,.epub,.png,.jpg,.jpeg,.webp,.gif,.zip,.7z';
const ARCHIVE = /\.(zip|7z)$/i;

interface Pending {
  key: number;
  analyzed: AnalyzedResource;
  source: string | null;
}

/** Choose files → analyze each (upload progress) → one review form per file found, or add all. */
export function AnalyzeUpload(props: {
  suggestions: TagSuggestion[];
  onConfirmed: (resource: Resource) => void;
}) {
  const [files, setFiles] = useState<File[]>([]);
  const [progress, setProgress] = useState<{ name: string; value: number } | null>(null);
  const [errors, setErrors] = useState<string[]>([]);
  const [notes, setNotes] = useState<string[]>([]);
  const [pending, setPending] = useState<Pending[]>([]);
  const [confirmed, setConfirmed] = useState<string | null>(null);
  const addAll = useAction();

  const analyze = async (event: Event) => {
    event.preventDefault();
    setErrors([]);
    setNotes([]);
    setConfirmed(null);
    let key = Date.now();
    for (const file of files) {
      if (file.size > MAX_UPLOAD_BYTES) {
        setErrors((e) => [...e, tooLarge(file)]);
        continue;
      }
      setProgress({ name: file.name, value: 0 });
      try {
        const found = await analyzeFile(file, (sent, total) =>
          setProgress({ name: file.name, value: sent / total }),
        );
        if (found.length === 0)
          setNotes((n) => [...n, t('resources.noneFound', { name: file.name })]);
        // the server keeps one staged file per name: a newer analysis replaces the older one,
        // so an older form for the same name would confirm the newer file with the old metadata
        const names = new Set(found.map((analyzed) => analyzed.filename));
        const source = ARCHIVE.test(file.name) ? file.name : null;
        setPending((p) => [
          ...p.filter((x) => !names.has(x.analyzed.filename)),
          ...found.map((analyzed) => ({ key: key++, analyzed, source })),
        ]);
      } catch (err) {
        setErrors((e) => [...e, `${file.name}: ${errorMessage(err)}`]);
      }
    }
    setProgress(null);
    setFiles([]);
    (event.target as HTMLFormElement).reset();
  };

  const drop = (key: number) => setPending((p) => p.filter((x) => x.key !== key));

  /** Confirms every waiting file with the metadata the analysis found, one after another. */
  const confirmAll = async () => {
    const waiting = [...pending];
    let added = 0;
    await addAll.run(async () => {
      for (const { key, analyzed: a } of waiting) {
        const stored = await confirmAnalyzed(a, a);
        added += 1;
        drop(key);
        props.onConfirmed(stored);
      }
    });
    if (added > 0) setConfirmed(t('resources.addedAll', { count: added }));
  };

  return (
    <div class="analyze">
      <form class="inline-form" onSubmit={(e) => void analyze(e)}>
        <Field
          label={t('resources.filesToAnalyze')}
          id="analyze-files"
          hint={t('resources.analyzeHint')}
        >
          <input
            id="analyze-files"
            type="file"
            multiple
            accept={ANALYZE_ACCEPT}
            aria-describedby="analyze-files-hint"
            onChange={(e) => setFiles([...(e.currentTarget.files ?? [])])}
          />
        </Field>
        <BusyButton
          type="submit"
          class="primary"
          busy={progress !== null}
          disabled={files.length === 0}
          label={t('resources.analyze')}
          busyLabel={t('resources.analyzing')}
        />
      </form>
      {progress && (
        <ProgressBar
          value={progress.value}
          label={t('resources.uploadingName', { name: progress.name })}
        />
      )}
      {progress && (
        <p class="muted" role="status">
          {progress.value < 1
            ? t('resources.uploadingName', { name: progress.name })
            : t('resources.reading', { name: progress.name })}
        </p>
      )}
      {errors.map((e) => (
        <ErrorMessage key={e} message={e} />
      ))}
      {notes.map((n) => (
        <p class="notice" key={n} role="status">
          {n}
        </p>
      ))}
      {confirmed && (
        <p class="success" role="status">
          {confirmed}
        </p>
      )}
      {pending.length > 1 && (
        <div class="add-all">
          <BusyButton
            class="primary"
            busy={addAll.busy}
            label={t('resources.addAll', { count: pending.length })}
            busyLabel={t('resources.adding')}
            onClick={() => void confirmAll()}
          />
          <ErrorMessage message={addAll.error} />
        </div>
      )}
      {pending.map(({ key, analyzed, source }) => (
        <ReviewForm
          key={key}
          index={key}
          analyzed={analyzed}
          source={source}
          suggestions={props.suggestions}
          onDiscard={() => drop(key)}
          onConfirmed={(resource) => {
            drop(key);
            setConfirmed(t('resources.added', { title: resource.title }));
            props.onConfirmed(resource);
          }}
        />
      ))}
    </div>
  );
}
