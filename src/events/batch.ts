/**
 * Items handed over while a send is on its way go together in the next one (at most `maxBatch`),
 * in order; each promise settles with the send that carried it: its own element of the results
 * (undefined when the send gives none), or the send's error. Nothing waits when nothing is on its
 * way: one item alone goes at once, so batching adds no delay, and under load one round trip
 * carries what queued behind the previous one.
 */
export function createBatcher<T, R = void>(
  send: (items: T[]) => Promise<readonly R[] | void>,
  maxBatch: number,
) {
  let waiting: { item: T; resolve: (result: R) => void; reject: (err: unknown) => void }[] = [];
  let sending = false;
  const next = (): void => {
    if (sending || waiting.length === 0) return;
    sending = true;
    const batch = waiting.slice(0, maxBatch);
    waiting = waiting.slice(batch.length);
    let sent: Promise<readonly R[] | void>;
    try {
      sent = send(batch.map((b) => b.item)); // at once: a bus closing next still carries it
    } catch (err) {
      sent = Promise.reject(err);
    }
    sent
      .then(
        (results) => batch.forEach((b, i) => b.resolve(results?.[i] as R)),
        (err: unknown) => batch.forEach((b) => b.reject(err)),
      )
      .finally(() => {
        sending = false;
        next();
      });
  };
  return {
    enqueue(item: T): Promise<R> {
      return new Promise<R>((resolve, reject) => {
        waiting.push({ item, resolve, reject });
        next();
      });
    },
    /** the items not yet handed to `send` are refused */
    rejectWaiting(err: Error): void {
      for (const w of waiting.splice(0)) w.reject(err);
    },
  };
}
