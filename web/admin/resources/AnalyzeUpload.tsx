import { useState } from 'preact/hooks';
import type { AnalyzedResource, Resource, TagSuggestion } from '../api/types.ts';
import { uploadForm } from '../api/upload.ts';
import { BusyButton, ErrorMessage, Field, ProgressBar } from '../components/ui.tsx';
import { errorMessage } from '../format.ts';
import { ReviewForm } from './ReviewForm.tsx';

const ANALYZE_ACCEPT = '.pdf,.epub,.png,.jpg,.jpeg,.webp,.gif,.zip,.7z';

interface Pending {
  key: number;
  analyzed: AnalyzedResource;
}

/** Choose files → analyze each (upload progress) → one review form per file found. */
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

  const analyze = async (event: Event) => {
    event.preventDefault();
    setErrors([]);
    setNotes([]);
    setConfirmed(null);
    let key = Date.now();
    for (const file of files) {
      setProgress({ name: file.name, value: 0 });
      const form = new FormData();
      form.append('file', file, file.name);
      try {
        const found = await uploadForm<AnalyzedResource[]>(
          '/api/admin/resources/analyze',
          form,
          (sent, total) => setProgress({ name: file.name, value: sent / total }),
        );
        if (found.length === 0) setNotes((n) => [...n, `${file.name}: no supported file found.`]);
        // the server keeps one staged file per name: a newer analysis replaces the older one,
        // so an older form for the same name would confirm the newer file with the old metadata
        const names = new Set(found.map((analyzed) => analyzed.filename));
        setPending((p) => [
          ...p.filter((x) => !names.has(x.analyzed.filename)),
          ...found.map((analyzed) => ({ key: key++, analyzed })),
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

  return (
    <div class="analyze">
      <form class="inline-form" onSubmit={(e) => void analyze(e)}>
        <Field
          label="Files to analyze"
          id="analyze-files"
          hint="PDF, EPUB, images, ZIP or 7z; up to 25 MB each"
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
          label="Analyze"
          busyLabel="Analyzing…"
        />
      </form>
      {progress && <ProgressBar value={progress.value} label={`Uploading ${progress.name}`} />}
      {progress && (
        <p class="muted" role="status">
          {progress.value < 1 ? `Uploading ${progress.name}…` : `Reading ${progress.name}…`}
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
          “{confirmed}” was added to the catalog.
        </p>
      )}
      {pending.map(({ key, analyzed }) => (
        <ReviewForm
          key={key}
          index={key}
          analyzed={analyzed}
          suggestions={props.suggestions}
          onDiscard={() => drop(key)}
          onConfirmed={(resource) => {
            drop(key);
            setConfirmed(resource.title);
            props.onConfirmed(resource);
          }}
        />
      ))}
    </div>
  );
}
