import { useState } from 'preact/hooks';
import type { JournalEntry } from '#web/admin/api/types.ts';
import { BusyButton, Loading, TableHead } from '#web/admin/components/ui.tsx';
import { errorMessage, formatDateTime } from '#web/admin/format.ts';
import { useLoad } from '#web/admin/hooks.ts';
import { locale, t } from '#web/admin/i18n.ts';
import { ErrorMessage } from '#web/shared/form.tsx';
import { inventoryJournal } from './inventories.api.ts';

const COLUMNS = ['when', 'who', 'what', 'change', 'after'] as const;
const signed = (n: number) => (n > 0 ? '+' : '') + n.toLocaleString(locale);

/** An inventory's journal, newest first, 50 rows a page: who changed what, when, from where. */
export function JournalView(props: { inventoryId: string; title: string }) {
  const first = useLoad(() => inventoryJournal(props.inventoryId, null), [props.inventoryId]);
  const [older, setOlder] = useState<JournalEntry[]>([]);
  const [more, setMore] = useState({ busy: false, error: null as string | null, done: false });
  const entries = [...(first.data?.entries ?? []), ...older];

  async function loadOlder() {
    const oldest = entries[entries.length - 1];
    if (!oldest) return;
    setMore({ ...more, busy: true, error: null });
    try {
      const page = await inventoryJournal(props.inventoryId, oldest.at);
      setOlder([...older, ...page.entries]);
      setMore({ busy: false, error: null, done: page.entries.length === 0 });
    } catch (err) {
      setMore({ busy: false, error: errorMessage(err), done: false });
    }
  }

  return (
    <section class="journal-view" aria-label={t('journal.of', { inventory: props.title })}>
      <ErrorMessage message={first.error} />
      {first.loading && !first.data && <Loading />}
      {first.data && entries.length === 0 && <p class="muted">{t('journal.empty')}</p>}
      {entries.length > 0 && (
        <table class="journal">
          <TableHead columns={COLUMNS.map((column) => t(`journal.${column}`))} />
          <tbody>
            {entries.map((e) => (
              <tr key={e.id}>
                <td>{formatDateTime(e.at)}</td>
                <td>{e.username}</td>
                <td>
                  {e.itemName}{' '}
                  <span class="muted">
                    ({t(`journal.kind.${e.kind}`)}, {t(`journal.source.${e.source}`)})
                  </span>
                </td>
                <td>{signed(e.delta)}</td>
                <td>{e.quantityAfter.toLocaleString(locale)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <ErrorMessage message={more.error} />
      {first.data && entries.length >= 50 && !more.done && (
        <BusyButton
          type="button"
          busy={more.busy}
          label={t('journal.older')}
          busyLabel={t('journal.older')}
          onClick={loadOlder}
        />
      )}
    </section>
  );
}
