import { Type, type Static } from '@fastify/type-provider-typebox';
import { Nullable } from '#src/http/schemas.js';

const DEFAULT_JOURNAL_PAGE = 50;
const MAX_JOURNAL_PAGE = 200;

export const JournalEntrySchema = Type.Object(
  {
    id: Type.String({ description: 'UUID of the row' }),
    at: Type.Integer({ description: 'when the server wrote the change, epoch ms' }),
    itemId: Type.String(),
    itemName: Type.String({
      description: "the item's name after the change (before, for a delete)",
    }),
    userId: Nullable(Type.String({ description: 'null once the user is deleted' })),
    username: Type.String({ description: 'kept after the user is deleted' }),
    deviceId: Nullable(Type.String({ description: 'the deviceId an offline batch named' })),
    opId: Nullable(Type.String({ description: 'the offline operation; null for other writes' })),
    source: Type.Unsafe<'rest' | 'sync' | 'import' | 'shopping' | 'admin'>({
      type: 'string',
      enum: ['rest', 'sync', 'import', 'shopping', 'admin'],
      description:
        'rest: the item routes; sync: PUT /api/inventory or the offline queue; import; shopping: bought on the shopping list; admin',
    }),
    kind: Type.Unsafe<'create' | 'set' | 'adjust' | 'delete'>({
      type: 'string',
      enum: ['create', 'set', 'adjust', 'delete'],
      description: 'create, set (an absolute quantity), adjust (a relative one) or delete',
    }),
    delta: Type.Number({ description: 'the change of quantity (a delete: minus what was there)' }),
    quantityAfter: Type.Number({
      description: 'the stored quantity after the change (0 after a delete)',
    }),
  },
  { $id: 'JournalEntry' },
);
export type JournalEntry = Static<typeof JournalEntrySchema>;

export const JournalPage = Type.Object(
  {
    before: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 8640000000000000,
        description:
          'only rows written before this (epoch ms, exclusive): the oldest `at` of the page before',
      }),
    ),
    limit: Type.Integer({ minimum: 1, maximum: MAX_JOURNAL_PAGE, default: DEFAULT_JOURNAL_PAGE }),
  },
  { additionalProperties: false },
);
export type JournalPage = Static<typeof JournalPage> & { userId?: string };

export const InventoryJournalQuery = Type.Object(
  {
    ...JournalPage.properties,
    userId: Type.Optional(
      Type.String({ minLength: 1, maxLength: 64, description: "only this user's changes" }),
    ),
  },
  { additionalProperties: false },
);
