import type { TagSuggestion } from '#web/admin/api/types.ts';
import { Field } from '#web/admin/components/ui.tsx';
import { Markdown } from './Markdown.tsx';
import { TagInput } from './TagInput.tsx';
import { t } from '#web/admin/i18n.ts';

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

const DESCRIPTION_LIMIT = 4096;

/** What a resource or an analyzed file already says, as form values (`null` → `''`). */
export function metadataOf(r: {
  title: string;
  description: string;
  tags: string[];
  author?: string | null;
  language?: string | null;
  edition?: string | null;
  releaseDate?: string | null;
}): Metadata {
  return {
    title: r.title,
    description: r.description,
    author: r.author ?? '',
    tags: r.tags,
    language: r.language ?? '',
    edition: r.edition ?? '',
    releaseDate: r.releaseDate ?? '',
  };
}

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
      {text('title', t('meta.title'), { required: true, maxLength: 300 })}
      <div class="row">
        {text('author', t('meta.author'), { maxLength: 300 })}
        {text('language', t('meta.language'), { maxLength: 8, placeholder: 'de, en …', size: 6 })}
        {text('edition', t('meta.edition'), { maxLength: 100 })}
        <Field label={t('meta.releaseDate')} id={`${p}-releaseDate`}>
          <input
            id={`${p}-releaseDate`}
            type="date"
            value={value.releaseDate}
            onInput={(e) => set({ releaseDate: e.currentTarget.value })}
          />
        </Field>
      </div>
      <Field label={t('meta.tags')} id={`${p}-tags`}>
        <TagInput
          id={`${p}-tags`}
          tags={value.tags}
          suggestions={props.suggestions}
          onChange={(tags) => set({ tags })}
        />
      </Field>
      <div class="description">
        <Field
          label={t('meta.description')}
          id={`${p}-description`}
          hint={t('meta.characters', { used: value.description.length, max: DESCRIPTION_LIMIT })}
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
        <div class="preview" aria-label={t('meta.previewLabel')}>
          <span class="preview-label">{t('meta.preview')}</span>
          {value.description.trim() ? (
            <Markdown text={value.description} />
          ) : (
            <p class="muted">{t('meta.noDescription')}</p>
          )}
        </div>
      </div>
    </div>
  );
}
