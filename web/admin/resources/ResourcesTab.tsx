import { useEffect, useState } from 'preact/hooks';
import { Field, Loading } from '#web/admin/components/ui.tsx';
import { useLoad } from '#web/admin/hooks.ts';
import { bindText, ErrorMessage } from '#web/shared/form.tsx';
import { AnalyzeUpload } from './AnalyzeUpload.tsx';
import { ManualUpload } from './ManualUpload.tsx';
import { ResourceCard } from './ResourceCard.tsx';
import { t } from '#web/admin/i18n.ts';
import { searchResources, tagSuggestions } from './resources.api.ts';

/** The two ways to add a resource, in the order the switch shows them. */
const MODES = [
  { mode: 'analyze', label: 'resources.modeAnalyze' },
  { mode: 'manual', label: 'resources.modeManual' },
] as const;

/** The resource catalog: upload (analyzed or manual), search, tag filter, download, delete. */
export function ResourcesTab() {
  const [query, setQuery] = useState('');
  const [debounced, setDebounced] = useState('');
  const [tag, setTag] = useState('');
  const [mode, setMode] = useState<(typeof MODES)[number]['mode']>('analyze');
  const [revision, setRevision] = useState(0);
  const changed = () => setRevision((r) => r + 1);

  useEffect(() => {
    const timer = setTimeout(() => setDebounced(query.trim()), 250);
    return () => clearTimeout(timer);
  }, [query]);

  const tags = useLoad(tagSuggestions, [revision]);
  const list = useLoad(() => searchResources({ q: debounced, tag }), [debounced, tag, revision]);
  const suggestions = [...(tags.data ?? [])].sort(
    (a, b) => b.count - a.count || a.tag.localeCompare(b.tag),
  );
  const resources = list.data ?? [];
  const filtered = Boolean(debounced || tag);

  return (
    <div class="resources">
      <section class="card upload" aria-labelledby="upload-title">
        <h2 id="upload-title">{t('resources.add')}</h2>
        <div class="segmented" role="radiogroup" aria-label={t('resources.howToAdd')}>
          {MODES.map((m) => (
            <label key={m.mode}>
              <input
                type="radio"
                name="mode"
                checked={mode === m.mode}
                onChange={() => setMode(m.mode)}
              />
              {t(m.label)}
            </label>
          ))}
        </div>
        {mode === 'analyze' ? (
          <AnalyzeUpload suggestions={suggestions} onConfirmed={changed} />
        ) : (
          <ManualUpload suggestions={suggestions} onUploaded={changed} />
        )}
      </section>

      <h2>
        {t('resources.catalog')}{' '}
        <span class="count">
          {filtered ? t('resources.found', { count: resources.length }) : `(${resources.length})`}
        </span>
      </h2>
      <form class="filters" role="search" onSubmit={(e) => e.preventDefault()}>
        <Field label={t('resources.search')} id="resource-search">
          <input
            id="resource-search"
            type="search"
            placeholder={t('resources.searchPlaceholder')}
            {...bindText(query, setQuery)}
          />
        </Field>
        <Field label={t('resources.tag')} id="resource-tag">
          <select id="resource-tag" value={tag} onChange={(e) => setTag(e.currentTarget.value)}>
            <option value="">{t('resources.allTags')}</option>
            {suggestions.map((s) => (
              <option key={s.tag} value={s.tag}>
                {s.tag} ({s.count})
              </option>
            ))}
          </select>
        </Field>
      </form>
      <ErrorMessage message={list.error ?? tags.error} />
      {list.loading && !list.data && <Loading />}
      {list.data && resources.length === 0 && (
        <p class="muted">{filtered ? t('common.noMatch') : t('resources.empty')}</p>
      )}
      <ul class="cards" aria-label="Resources">
        {resources.map((r) => (
          <ResourceCard key={r.guid} resource={r} suggestions={suggestions} onChanged={changed} />
        ))}
      </ul>
    </div>
  );
}
