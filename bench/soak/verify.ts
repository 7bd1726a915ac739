import { pool } from '#bench/lib/http.js';
import { sleep } from '#bench/lib/processes.js';
import type { SoakClient, Shared } from './client.js';
import type { MessageRecord } from './stats.js';

const ITEM_FIELDS = [
  'name',
  'categoryId',
  'quantity',
  'unit',
  'unitPrice',
  'locationId',
  'notes',
  'lastUpdated',
];
const QUIET_MS = 2000;
const CONCURRENCY = 8;

/** The soak's assertions; returns what failed, in words (empty when everything held). */
export async function verify(shared: Shared, sent: MessageRecord[]): Promise<string[]> {
  const failures: string[] = [];
  await confirmOverHttp(shared, sent);
  // a fresh connect of every client after every delivery was confirmed must push nothing again
  const before = sent.reduce((n, m) => n + m.receipts, 0);
  for (const c of shared.clients) c.disconnect(false);
  await pool(shared.clients.length, CONCURRENCY, (i) => shared.clients[i]!.connect());
  await sleep(QUIET_MS);
  const again = sent.reduce((n, m) => n + m.receipts, 0) - before;
  for (const c of shared.clients) c.disconnect(false);

  const { stats } = shared;
  if (stats.fiveXx) failures.push(`${stats.fiveXx} answers were 5xx`);
  if (stats.errors.length)
    failures.push(
      `${stats.errors.length} requests or sockets failed: ${stats.errors.slice(0, 3).join('; ')}`,
    );
  if (stats.unexpected.length)
    failures.push(
      `${stats.unexpected.length} unexpected answers: ${stats.unexpected.slice(0, 3).join('; ')}`,
    );
  const lost = sent.filter((m) => m.receipts === 0);
  if (lost.length) failures.push(`${lost.length} messages never reached their receiver`);
  const unconfirmed = sent.filter((m) => m.confirmedAt === null);
  if (unconfirmed.length)
    failures.push(`${unconfirmed.length} messages acked but not delivered (deliveredAt null)`);
  const afterAck = sent.filter((m) => m.afterConfirm > 0);
  if (afterAck.length)
    failures.push(`${afterAck.length} messages pushed again after their ack was confirmed`);
  if (again) failures.push(`${again} messages pushed again on the final reconnect`);
  const doubled = sent.filter((m) => m.deliveredFrames > 1);
  if (doubled.length)
    failures.push(`${doubled.length} messages had more than one message_delivered frame`);
  const stray = [...shared.messages.values()].filter((m) => !m.sent && m.receipts > 0);
  if (stray.length) failures.push(`${stray.length} messages received that were never answered 201`);
  failures.push(...(await compareInventories(shared)));
  return failures;
}

/**
 * A sender whose socket was down when its message was acknowledged missed `message_delivered`:
 * it reads the conversation (reading as the sender marks nothing) and takes `deliveredAt`.
 */
async function confirmOverHttp(shared: Shared, sent: MessageRecord[]): Promise<void> {
  const pairs = new Map<string, MessageRecord[]>();
  for (const m of sent.filter((m) => m.confirmedAt === null)) {
    const key = `${m.senderIndex}:${m.receiverIndex}`;
    pairs.set(key, [...(pairs.get(key) ?? []), m]);
  }
  await pool([...pairs.values()].length, CONCURRENCY, async (i) => {
    const list = [...pairs.values()][i]!;
    const sender = shared.clients[list[0]!.senderIndex]!;
    const receiver = shared.clients[list[0]!.receiverIndex]!;
    const reply = await sender.request(
      'conversation',
      { path: `/api/messages/${receiver.userId}?limit=200`, token: sender.access },
      [200],
    );
    if (!reply) return;
    const delivered = new Map<string, number | null>(
      reply.json().map((m: { id: string; deliveredAt: number | null }) => [m.id, m.deliveredAt]),
    );
    for (const m of list) if (delivered.get(m.id)) m.confirmedAt = Date.now();
  });
}

/** Each household's inventory equals its members' models; each replica equals the inventory. */
async function compareInventories(shared: Shared): Promise<string[]> {
  const failures: string[] = [];
  const households = new Map<number, SoakClient[]>();
  for (const c of shared.clients)
    households.set(c.household[0]!, [...(households.get(c.household[0]!) ?? []), c]);
  let items = 0;
  for (const members of households.values()) {
    const first = members[0]!;
    const reply = await first.request(
      'full sync',
      { path: '/api/inventory', token: first.access },
      [200],
    );
    if (!reply) {
      failures.push(`no snapshot for ${first.username}'s household`);
      continue;
    }
    const snapshot = reply.json();
    const server = new Map<string, Record<string, unknown>>(
      snapshot.items.map((i: { id: string }) => [i.id, i]),
    );
    const model = new Map<string, Record<string, unknown>>();
    for (const c of members) for (const [id, item] of c.model) if (item) model.set(id, item);
    items += model.size;
    for (const [id, want] of model) {
      const got = server.get(id);
      const wrong = got ? ITEM_FIELDS.filter((f) => got[f] !== want[f]) : [];
      if (!got) failures.push(`item ${id}: answered write lost`);
      else if (wrong.length)
        failures.push(`item ${id}: ${wrong.join(', ')} differ from the last answered write`);
    }
    for (const id of server.keys())
      if (!model.has(id)) failures.push(`item ${id}: on the server, not in the model`);
    for (const c of members) {
      await c.deltaSync();
      const same =
        c.replica.revision === snapshot.revision &&
        c.replica.items.size === server.size &&
        [...server].every(([id, item]) => c.replica.items.get(id)?.revision === item.revision);
      if (!same) failures.push(`${c.username}: replica from syncs differs from the snapshot`);
    }
  }
  shared.stats.modelItems = items;
  return failures.slice(0, 20);
}
