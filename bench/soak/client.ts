import { randomUUID } from 'node:crypto';
import type http from 'node:http';
import WebSocket from 'ws';
import { call, type Call, type Reply } from '#bench/lib/http.js';
import { USER_PASSWORD } from '#bench/lib/larder.js';
import { sleep } from '#bench/lib/processes.js';
import { openUntilHello } from '#bench/lib/sockets.js';
import type { MessageRecord, Stats } from './stats.js';

export interface Shared {
  base: string;
  agent: http.Agent;
  stats: Stats;
  messages: Map<string, MessageRecord>;
  clients: SoakClient[];
}

type Item = Record<string, unknown> & { id: string; lastUpdated: number; revision?: number };
const SOCKET_OPEN_TIMEOUT_MS = 30_000;

/**
 * One app: a user signed in on one device with one socket, editing only its own items (ids
 * `<username>-<n>`) in an inventory shared with its household, so the final inventory can be
 * compared exactly with the writes the server answered (`model`). It also keeps a replica built
 * from full and delta syncs, which must equal the server's snapshot at the end.
 */
export class SoakClient {
  access = '';
  refresh = '';
  ws: WebSocket | null = null;
  socketOpenedAt = 0;
  /** own items: the last answered write of each (null when deleted) */
  readonly model = new Map<string, Item | null>();
  replica = { revision: 0, inventoryId: '', items: new Map<string, Item>() };
  private created = 0;
  private loggingOut = false;
  private lastUpdated = 0;

  constructor(
    private readonly shared: Shared,
    readonly index: number,
    readonly username: string,
    readonly userId: string,
    readonly household: number[],
  ) {}

  /** One request: latency and status recorded; a status outside `ok` is reported. */
  async request(kind: string, c: Omit<Call, 'agent'>, ok: number[]): Promise<Reply | null> {
    const started = performance.now();
    let reply: Reply;
    try {
      reply = await call(this.shared.base, { ...c, agent: this.shared.agent });
    } catch (err) {
      this.shared.stats.errors.push(`${kind}: ${(err as Error).message}`);
      return null;
    }
    this.shared.stats.record(kind, reply.status, performance.now() - started);
    if (!ok.includes(reply.status)) {
      const text = reply.body.toString('utf8').slice(0, 200);
      this.shared.stats.unexpected.push(
        `${kind} ${c.method ?? 'GET'} ${c.path}: ${reply.status} ${text}`,
      );
      return null;
    }
    return reply;
  }

  async login(): Promise<void> {
    const body = { username: this.username, password: USER_PASSWORD };
    const reply = await this.request(
      'login',
      { method: 'POST', path: '/api/auth/login', body },
      [200],
    );
    if (reply) this.takeTokens(reply);
  }

  /** Signs this device out (its socket is closed with 4001) and in again, then reconnects. */
  async relogin(): Promise<void> {
    const body = { refreshToken: this.refresh };
    this.loggingOut = true;
    await this.request('logout', { method: 'POST', path: '/api/auth/logout', body }, [204]);
    await this.login();
    this.loggingOut = false;
    await this.reconnect(false);
  }

  async refreshTokens(): Promise<void> {
    const body = { refreshToken: this.refresh };
    const reply = await this.request(
      'refresh',
      { method: 'POST', path: '/api/auth/refresh', body },
      [200],
    );
    if (reply) this.takeTokens(reply);
  }

  private takeTokens(reply: Reply): void {
    const body = reply.json();
    this.access = body.accessToken;
    this.refresh = body.refreshToken;
  }

  async fullSync(): Promise<void> {
    const reply = await this.request(
      'full sync',
      { path: '/api/inventory', token: this.access },
      [200],
    );
    if (!reply) return;
    const snapshot = reply.json();
    this.replica = {
      revision: snapshot.revision,
      inventoryId: snapshot.inventoryId,
      items: new Map(snapshot.items.map((item: Item) => [item.id, item])),
    };
  }

  async deltaSync(): Promise<void> {
    const { revision, inventoryId } = this.replica;
    const path = `/api/inventory/changes?since=${revision}&inventoryId=${inventoryId}`;
    const reply = await this.request('delta sync', { path, token: this.access }, [200]);
    if (!reply) return;
    const delta = reply.json();
    for (const item of delta.items as Item[]) this.replica.items.set(item.id, item);
    for (const id of delta.deletedItemIds as string[]) this.replica.items.delete(id);
    this.replica.revision = delta.revision;
  }

  /** Creates, changes or deletes one of its own items; the model follows answered writes only. */
  async edit(random: () => number): Promise<void> {
    const live = [...this.model.entries()].filter(([, item]) => item !== null).map(([id]) => id);
    this.lastUpdated = Math.max(Date.now(), this.lastUpdated + 1);
    const lastUpdated = this.lastUpdated;
    if (live.length < 3 || random() < 0.25) {
      const item: Item = {
        id: `${this.username}-${++this.created}`,
        name: `item ${this.created} of ${this.username}`,
        categoryId: 1,
        quantity: Math.floor(random() * 100),
        unit: 'pcs',
        unitPrice: 1.5,
        locationId: 1,
        notes: '',
        lastUpdated,
      };
      const body = { method: 'POST', path: '/api/inventory/items', token: this.access, body: item };
      if (await this.request('item create', body, [201])) this.model.set(item.id, item);
      return;
    }
    const id = live[Math.floor(random() * live.length)]!;
    const path = `/api/inventory/items/${id}`;
    if (random() < 0.15) {
      const c = {
        method: 'DELETE',
        path: `${path}?lastUpdated=${lastUpdated}`,
        token: this.access,
      };
      if (await this.request('item delete', c, [204])) this.model.set(id, null);
      return;
    }
    const change = {
      quantity: Math.floor(random() * 100),
      notes: `edit ${lastUpdated}`,
      lastUpdated,
    };
    const c = { method: 'PATCH', path, token: this.access, body: change };
    if (await this.request('item patch', c, [200]))
      this.model.set(id, { ...this.model.get(id)!, ...change });
  }

  /** Writes to another member of the household (or anyone when alone). */
  async sendMessage(random: () => number): Promise<void> {
    const others = this.household.filter((i) => i !== this.index);
    const receiver = this.shared.clients[others[Math.floor(random() * others.length)]!]!;
    const id = randomUUID();
    const record = this.shared.messages.get(id) ?? newRecord(id, this.index, receiver.index);
    this.shared.messages.set(id, record);
    const body = { id, receiverId: receiver.userId, body: `soak message ${id}` };
    const reply = await this.request(
      'message send',
      { method: 'POST', path: '/api/messages', token: this.access, body },
      [201],
    );
    if (reply) record.sent = true;
  }

  /** Opens the socket and resolves on its hello. */
  async connect(): Promise<void> {
    const url = `${this.shared.base.replace('http://', 'ws://')}/ws/sync`;
    const openedAt = Date.now();
    const { ws, hello } = openUntilHello(
      url,
      this.access,
      this.index,
      SOCKET_OPEN_TIMEOUT_MS,
      (frame) => this.onFrame(ws, frame, openedAt),
    );
    this.ws = ws;
    ws.once('close', (code) => {
      if (this.ws !== ws || this.loggingOut) return;
      this.ws = null;
      this.shared.stats.unexpected.push(`socket closed by the server: ${code}`);
    });
    await hello.then(
      () => void (this.socketOpenedAt = openedAt),
      (err: Error) => {
        if (this.ws === ws) this.ws = null;
        this.shared.stats.errors.push(`socket: ${err.message}`);
      },
    );
    if (this.ws === ws) this.shared.stats.socketsOpened++;
  }

  private onFrame(ws: WebSocket, frame: any, openedAt: number): void {
    const messages = this.shared.messages;
    if (frame.type === 'new_message') {
      const m = frame.message;
      const record = messages.get(m.id) ?? newRecord(m.id, -1, this.index);
      messages.set(m.id, record);
      record.receipts++;
      if (record.confirmedAt !== null && openedAt > record.confirmedAt) record.afterConfirm++;
      ws.send(JSON.stringify({ type: 'ack', messageId: m.id }));
      record.acked = true;
    } else if (frame.type === 'message_delivered') {
      const record = messages.get(frame.messageId);
      if (!record) return;
      record.deliveredFrames++;
      record.confirmedAt ??= Date.now();
    } else if (frame.type === 'error') {
      this.shared.stats.unexpected.push(`socket error frame: ${JSON.stringify(frame)}`);
    }
  }

  /** Drops the socket (abruptly or with a close frame), reconnects after a short backoff, catches up. */
  async reconnect(abrupt: boolean): Promise<void> {
    this.disconnect(abrupt);
    await sleep(50 + Math.floor(Math.random() * 200));
    await this.connect();
    this.shared.stats.reconnects++;
    await this.deltaSync();
  }

  disconnect(abrupt: boolean): void {
    const ws = this.ws;
    this.ws = null;
    if (!ws) return;
    if (abrupt) ws.terminate();
    else ws.close(1000);
  }
}

function newRecord(id: string, senderIndex: number, receiverIndex: number): MessageRecord {
  return {
    id,
    senderIndex,
    receiverIndex,
    sent: false,
    receipts: 0,
    acked: false,
    confirmedAt: null,
    deliveredFrames: 0,
    afterConfirm: 0,
  };
}
