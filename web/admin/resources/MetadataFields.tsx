import type { TagSuggestion } from '../api/types.ts';
import { Field } from '../components/ui.tsx';
import { Markdown } from './Markdown.tsx';
import { TagInput } from './TagInput.tsx';

/** The metadata an admin reviews or types in before a file joins the catalog. */
export interface Metadata {
  title: string;
  description: string;
  author: string;
  tags: string[];
  language: string;
  edition: string;
  releaseDate: string;
}

export const DESCRIPTION_LIMIT = 4096;

/** `''` → null for the optional fields, as the API expects. */
export function toWire(m: Metadata) {
  const orNull = (s: string) => (s.trim() === '' ? null : s.trim());
  return {
    title: m.title.trim(),
    description: m.description,
    author: orNull(m.author),
    tags: m.tags,
    language: orNull(m.language),
    edition: orNull(m.edition),
    releaseDate: orNull(m.releaseDate),
  };
}

export function MetadataFields(props: {
  idPrefix: string;
  value: Metadata;
  suggestions: TagSuggestion[];
  onChange: (value: Metadata) => void;
}) {
  const { value, idPrefix: p } = props;
  const set = (patch: Partial<Metadata>) => props.onChange({ ...value, ...patch });
  const text = (key: 'title' | 'author' | 'language' | 'edition', label: string, extra = {}) => (
    <Field label={label} id={`${p}-${key}`}>
      <input
        id={`${p}-${key}`}
        value={value[key]}
        onInput={(e) => set({ [key]: e.currentTarget.value })}
        {...extra}
      />
    </Field>
  );

  return (
    <div class="metadata">
      {text('title', 'Title', { required: true, maxLength: 300 })}
      <div class="row">
        {text('author', 'Author', { maxLength: 300 })}
        {text('language', 'Language', { maxLength: 8, placeholder: 'de, en …', size: 6 })}
        {text('edition', 'Edition', { maxLength: 100 })}
        <Field label="Release date" id={`${p}-releaseDate`}>
          <input
            id={`${p}-releaseDate`}
            type="date"
            value={value.releaseDate}
            onInput={(e) => set({ releaseDate: e.currentTarget.value })}
          />
        </Field>
      </div>
      <Field label="Tags" id={`${p}-tags`}>
        <TagInput
          id={`${p}-tags`}
          tags={value.tags}
          suggestions={props.suggestions}
          onChange={(tags) => set({ tags })}
        />
      </Field>
      <div class="description">
        <Field
          label="Description (Markdown)"
          id={`${p}-description`}
          hint={`${value.description.length} / ${DESCRIPTION_LIMIT} characters`}
        >
          <textarea
            id={`${p}-description`}
            rows={6}
            maxLength={DESCRIPTION_LIMIT}
            aria-describedby={`${p}-description-hint`}
            value={value.description}
            onInput={(e) => set({ description: e.currentTarget.value })}
          />
        </Field>
        <div class="preview" aria-label="Description preview">
          <span class="preview-label">Preview</span>
          {value.description.trim() ? (
            <Markdown text={value.description} />
          ) : (
            <p class="muted">No description.</p>
          )}
        </div>
      </div>
    </div>
  );
}
