import { useEffect, useState } from 'preact/hooks';
import type { components } from '#web/shared/api/openapi.ts';
import { SearchField } from '#web/app/form.tsx';
import type { Household } from '#web/app/household.ts';
import { locale, t } from '#web/app/i18n.ts';
import { api, freshAccessToken, isOnline, NetworkError } from '#web/app/session/session.ts';
import { ErrorMessage } from '#web/shared/form.tsx';

type Resource = components['schemas']['Resource'];

const size = (bytes: number) =>
  bytes >= 1024 * 1024
    ? `${new Intl.NumberFormat(locale, { maximumFractionDigits: 1 }).format(bytes / 1048576)} MB`
    : `${new Intl.NumberFormat(locale).format(Math.max(1, Math.round(bytes / 1024)))} KB`;

/** The library's list, from the server, else the copy kept from the last visit. */
function useResources(household: Household) {
  const [list, setList] = useState<Resource[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    void (async () => {
      const cached = (await household.db.get('cache', 'resources')) as Resource[] | undefined;
      if (cached) setList(cached);
      if (!isOnline()) return;
      try {
        const fresh = await api<Resource[]>('GET', '/api/resources');
        setList(fresh);
        await household.db.put('cache', fresh, 'resources');
      } catch (err) {
        if (!(err instanceof NetworkError)) setError((err as Error).message);
      }
    })();
  }, []);
  return { list, error };
}

/** Saves the file through a same-origin link with a fresh token (the browser streams it). */
async function download(resource: Resource): Promise<void> {
  const token = await freshAccessToken();
  const url = new URL(resource.downloadUrl, location.href);
  url.searchParams.set('token', token);
  const link = document.createElement('a');
  link.href = `${url.pathname}${url.search}`;
  link.download = '';
  link.rel = 'noopener';
  document.body.append(link);
  link.click();
  link.remove();
}

/** Library: the household's guides and books, with a search, a tag filter and downloads. */
export function LibraryScreen(props: { household: Household }) {
  const { list, error } = useResources(props.household);
  const [search, setSearch] = useState('');
  const [tag, setTag] = useState('');
  const [downloadError, setDownloadError] = useState<string | null>(null);
  const tags = [...new Set((list ?? []).flatMap((r) => r.tags))].sort((a, b) =>
    a.localeCompare(b, locale),
  );
  const needle = search.trim().toLocaleLowerCase(locale);
  const shown = (list ?? []).filter(
    (r) =>
      (!tag || r.tags.includes(tag)) &&
      (!needle ||
        [r.title, r.description, r.author ?? '', ...r.tags]
          .join('\n')
          .toLocaleLowerCase(locale)
          .includes(needle)),
  );

  return (
    <section aria-labelledby="library-title">
      <h1 id="library-title">{t('household.library')}</h1>
      <div class="toolbar" role="search">
        <SearchField id="library-search" value={search} set={setSearch} />
        <div class="field">
          <label for="library-tag">{t('household.tag')}</label>
          <select id="library-tag" value={tag} onChange={(e) => setTag(e.currentTarget.value)}>
            <option value="">{t('household.allTags')}</option>
            {tags.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </div>
      </div>
      <ErrorMessage message={error || downloadError} />
      {list === null && !error && <p class="loading">{t('common.loading')}</p>}
      {list?.length === 0 && <p class="empty">{t('household.emptyLibrary')}</p>}
      {list !== null && list.length > 0 && shown.length === 0 && (
        <p class="empty">{t('common.noMatch')}</p>
      )}
      <ul class="resources">
        {shown.map((r) => (
          <li key={r.guid} class="card">
            <h2>{r.title}</h2>
            {r.author && <p class="author">{r.author}</p>}
            {r.description && <p class="description">{r.description}</p>}
            <p class="facts">
              {r.fileFormat.toUpperCase()} · {size(r.fileSize)}
              {r.tags.length > 0 && ` · ${r.tags.join(', ')}`}
            </p>
            <button
              type="button"
              disabled={!isOnline()}
              aria-label={t('household.downloadOf', { title: r.title })}
              onClick={() =>
                void download(r).catch((err: unknown) =>
                  setDownloadError(err instanceof Error ? err.message : String(err)),
                )
              }
            >
              {t('household.download')}
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}
