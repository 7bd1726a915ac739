import { api, NetworkError, isOnline } from '#web/app/session/session.ts';
import { TransportError, type ReplicaTransport } from './replica.ts';
import type { Snapshot, SyncAnswer, SyncBody } from './queue.ts';

/** The replica's server: GET /api/inventory and POST /api/inventory/sync. */
export const httpTransport: ReplicaTransport = {
  reachable: isOnline,
  snapshot: () => unreachableAsTransport(() => api<Snapshot>('GET', '/api/inventory')),
  sync: (body: SyncBody) =>
    unreachableAsTransport(() => api<SyncAnswer>('POST', '/api/inventory/sync', body)),
};

async function unreachableAsTransport<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof NetworkError) throw new TransportError(err.message);
    throw err;
  }
}
