import { useState } from 'preact/hooks';
import type { TagSuggestion } from '#web/admin/api/types.ts';
import { t } from '#web/admin/i18n.ts';

/** Tags as removable chips, a text box (Enter or comma adds) and clickable suggestions. */
export function TagInput(props: {
  id: string;
  tags: string[];
  suggestions: TagSuggestion[];
  onChange: (tags: string[]) => void;
}) {
  const [draft, setDraft] = useState('');
  const add = (raw: string) => {
    const tag = raw.trim().toLowerCase();
    if (tag && !props.tags.includes(tag)) props.onChange([...props.tags, tag]);
    setDraft('');
  };
  const remove = (tag: string) => props.onChange(props.tags.filter((t) => t !== tag));
  const unused = props.suggestions.filter((s) => !props.tags.includes(s.tag)).slice(0, 12);

  return (
    <div class="tag-input">
      <ul class="chips" aria-label={t('tags.chosen')}>
        {props.tags.map((tag) => (
          <li key={tag}>
            {tag}
            <button
              type="button"
              class="chip-remove"
              aria-label={t('tags.remove', { tag })}
              onClick={() => remove(tag)}
            >
              ×
            </button>
          </li>
        ))}
      </ul>
      <input
        id={props.id}
        value={draft}
        maxLength={50}
        placeholder={t('tags.placeholder')}
        onInput={(e) => {
          const value = e.currentTarget.value;
          if (value.endsWith(',')) add(value.slice(0, -1));
          else setDraft(value);
        }}
        onKeyDown={(e) => {
          if (e.key === 'Enter') {
            e.preventDefault();
            add(draft);
          }
        }}
        onBlur={() => draft && add(draft)}
      />
      {unused.length > 0 && (
        <div class="suggestions" role="group" aria-label={t('tags.suggested')}>
          {unused.map((s) => (
            <button type="button" class="suggestion" key={s.tag} onClick={() => add(s.tag)}>
              + {s.tag}
              <span class="muted"> {s.count}</span>
            </button>
          ))}
        </div>
      )}
    </div>
  );
}
