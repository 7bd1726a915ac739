import type { IDBPDatabase } from 'idb';
import type { components } from '#web/shared/api/openapi.ts';
import { newId } from '#web/app/ids.ts';
import type { UserDb } from '#web/app/local/db.ts';
import type { Frame } from '#web/app/realtime/socket.ts';
import { api, ApiError, isOnline, NetworkError } from '#web/app/session/session.ts';

export type Message = components['schemas']['Message'];
export interface Member {
  id: string;
  username: string;
  isOnline: boolean;
}
/** A message written here and not yet stored by the server (the client record's isPending). */
interface PendingMessage {
  id: string;
  receiverId: string;
  body: string;
  sentAt: number;
}

export interface MessagesView {
  members: Member[] | null;
  conversations: Record<string, Message[]>;
  pending: PendingMessage[];
  error: string | null;
}

const PAGE = 50;

/**
 * Messages on this device: the members, the conversations read so far (kept for offline
 * reading), and the outbox of messages written offline. A message is sent with its client id, so
 * a retry after a lost answer is stored once; the socket brings new ones, which are acked.
 */
export function createMessenger(deps: {
  db: IDBPDatabase<UserDb>;
  userId: string;
  sendFrame: (frame: object) => void;
}) {
  const { db } = deps;
  let view: MessagesView = { members: null, conversations: {}, pending: [], error: null };
  const listeners = new Set<(view: MessagesView) => void>();
  let flushing = false;

  const emit = (change: Partial<MessagesView>) => {
    view = { ...view, ...change };
    for (const listener of listeners) listener(view);
  };

  function merge(userId: string, messages: Message[]): void {
    const byId = new Map((view.conversations[userId] ?? []).map((m) => [m.id, m]));
    for (const message of messages) byId.set(message.id, message);
    const list = [...byId.values()].sort((a, b) => a.sentAt - b.sentAt).slice(-200);
    emit({ conversations: { ...view.conversations, [userId]: list } });
    void db.put('cache', list, `conversation:${userId}`);
  }

  async function flush(): Promise<void> {
    if (flushing || !isOnline()) return;
    flushing = true;
    try {
      for (const entry of [...view.pending]) {
        try {
          const stored = await api<Message>('POST', '/api/messages', {
            id: entry.id,
            receiverId: entry.receiverId,
            body: entry.body,
          });
          await db.delete('outbox', entry.id);
          emit({ pending: view.pending.filter((p) => p.id !== entry.id) });
          merge(entry.receiverId, [stored]);
        } catch (err) {
          if (err instanceof NetworkError) return;
          // refused for good (the member was deleted, the text is not accepted): say so, drop it
          if (err instanceof ApiError && err.status >= 400 && err.status < 500) {
            await db.delete('outbox', entry.id);
            emit({ pending: view.pending.filter((p) => p.id !== entry.id), error: err.message });
          } else {
            emit({ error: err instanceof Error ? err.message : String(err) });
            return;
          }
        }
      }
    } finally {
      flushing = false;
    }
  }

  return {
    view: () => view,

    subscribe(listener: (view: MessagesView) => void): () => void {
      listeners.add(listener);
      listener(view);
      return () => listeners.delete(listener);
    },

    async load(): Promise<void> {
      const [members, pending] = await Promise.all([
        db.get('cache', 'members') as Promise<Member[] | undefined>,
        db.getAll('outbox'),
      ]);
      emit({ members: members ?? null, pending: pending.sort((a, b) => a.sentAt - b.sentAt) });
      void flush();
    },

    async refreshMembers(): Promise<void> {
      if (!isOnline()) return;
      try {
        const members = await api<Member[]>('GET', '/api/users');
        members.sort((a, b) => a.username.localeCompare(b.username));
        emit({ members });
        await db.put('cache', members, 'members');
      } catch (err) {
        if (!(err instanceof NetworkError)) emit({ error: (err as Error).message });
      }
    },

    async openConversation(userId: string): Promise<void> {
      const cached = (await db.get('cache', `conversation:${userId}`)) as Message[] | undefined;
      if (cached && !view.conversations[userId]) merge(userId, cached);
      if (!isOnline()) return;
      try {
        const path = `/api/messages/${encodeURIComponent(userId)}?limit=${PAGE}`;
        merge(userId, await api<Message[]>('GET', path));
      } catch (err) {
        if (!(err instanceof NetworkError)) emit({ error: (err as Error).message });
      }
    },

    /** Keeps the message in the outbox (shown as pending) and sends it when the server is there. */
    async send(receiverId: string, body: string): Promise<void> {
      const entry = { id: newId(), receiverId, body, sentAt: Date.now() };
      await db.put('outbox', entry);
      emit({ pending: [...view.pending, entry], error: null });
      await flush();
    },

    flush,

    onFrame(frame: Frame): void {
      if (frame.type === 'hello') void flush();
      if (frame.type === 'new_message' && 'message' in frame) {
        const message = frame.message as Message;
        const other = message.senderId === deps.userId ? message.receiverId : message.senderId;
        merge(other, [message]);
        if (message.receiverId === deps.userId) {
          deps.sendFrame({ type: 'ack', messageId: message.id });
        }
      }
      if (frame.type === 'message_delivered' && 'messageId' in frame) {
        for (const [userId, list] of Object.entries(view.conversations)) {
          const found = list.find((m) => m.id === frame.messageId);
          if (found) merge(userId, [{ ...found, deliveredAt: frame.deliveredAt }]);
        }
      }
    },

    dismissError: () => emit({ error: null }),
  };
}

export type Messenger = ReturnType<typeof createMessenger>;
