import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { callerOf } from '#src/http/auth.js';
import { errors, refTo } from '#src/http/schemas.js';
import { ItemId, inventoryDoc, WHO } from '#src/inventory/inventory.schemas.js';
import { InventoryJournalQuery, JournalEntrySchema, JournalPage } from './journal.schemas.js';
import type { JournalService } from './journal.service.js';

const Page = Type.Object({ entries: Type.Array(refTo(JournalEntrySchema)) });
const PAGING =
  'newest first; rows sharing the oldest `at` of a page all come in it (a page may exceed `limit`), so the next page is `before=<that at>`';

/** /api/inventory/journal and an item's journal: registered inside inventoryRoutes. */
export function journalRoutes(journal: JournalService): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.addSchema(JournalEntrySchema);

    app.get(
      '/api/inventory/journal',
      inventoryDoc(`The inventory's journal, ${PAGING}. ${WHO}`, {
        querystring: InventoryJournalQuery,
        response: { 200: Page, ...errors(400) },
      }),
      (request) => journal.list(callerOf(request), request.query),
    );

    app.get(
      '/api/inventory/items/:id/journal',
      inventoryDoc(
        `One item's journal (also of a deleted item; none: an empty list), ${PAGING}. ${WHO}`,
        {
          params: Type.Object({ id: ItemId }),
          querystring: JournalPage,
          response: { 200: Page, ...errors(400) },
        },
      ),
      (request) => journal.list(callerOf(request), { ...request.query, itemId: request.params.id }),
    );
  };
}
