import fastJson from 'fast-json-stringify';
import { ItemSchema, NamedSchema } from '#src/inventory/inventory.schemas.js';
import { ChangesSchema, SnapshotSchema, type Changes, type Snapshot } from './sync.schemas.js';

/**
 * The large sync answers serialized by us rather than by Fastify's reply, with the same
 * fast-json-stringify output, so the item list (up to the cap) is serialized a slice at a time
 * and the event loop serves others between slices.
 */

/** Items serialized per slice. */
const ITEMS_PER_SLICE = 2000;

const refs = { InventoryItem: ItemSchema, InventoryNamed: NamedSchema };

/** Compiled on first use, not at start-up (start-up does no work it can defer). */
function lazy<T>(compile: () => (value: T) => string): (value: T) => string {
  let fn: ((value: T) => string) | null = null;
  return (value) => (fn ??= compile())(value);
}
const stringifySnapshot = lazy<Snapshot>(() => fastJson(SnapshotSchema, { schema: refs }));
const stringifyChanges = lazy<Changes>(() => fastJson(ChangesSchema, { schema: refs }));
const stringifyItems = lazy<unknown[]>(() =>
  fastJson({ type: 'array', items: { $ref: 'InventoryItem' } }, { schema: refs }),
);

async function withItems<T extends { items: unknown[] }>(
  stringify: (value: T) => string,
  value: T,
  pace: () => Promise<void>,
): Promise<Buffer> {
  // every string before the items is escaped JSON (no bare quote): the first match is the key
  const shell = stringify({ ...value, items: [] });
  const at = shell.indexOf('"items":[]') + '"items":['.length;
  const parts: string[] = [shell.slice(0, at)];
  for (let i = 0; i < value.items.length; i += ITEMS_PER_SLICE) {
    const json = stringifyItems(value.items.slice(i, i + ITEMS_PER_SLICE));
    parts.push(i === 0 ? json.slice(1, -1) : `,${json.slice(1, -1)}`);
    await pace();
  }
  parts.push(shell.slice(at));
  return Buffer.from(parts.join(''));
}

export const serializeSnapshot = (snapshot: Snapshot, pace: () => Promise<void>) =>
  withItems(stringifySnapshot, snapshot, pace);

export const serializeChanges = (changes: Changes, pace: () => Promise<void>) =>
  withItems(stringifyChanges, changes, pace);
