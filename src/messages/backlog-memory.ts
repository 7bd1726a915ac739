/** How long a backlog is remembered: far longer than any event takes to cross the bus. */
export const BACKLOG_MEMORY_MS = 60_000;

interface Backlog {
  ids: Set<string>;
  finishedAt: number;
  done: Promise<void>;
}

/**
 * Remembers, per user and for a minute, which messages the latest (re)connect pushed from the
 * backlog. When the `messageCreated` event of such a message arrives late (a busy bus), the
 * socket already has it, and pushing it again would only make a duplicate.
 */
export function createBacklogMemory(now: () => number = Date.now) {
  const latest = new Map<string, Backlog>();

  function forget(): void {
    for (const [userId, backlog] of latest) {
      if (now() - backlog.finishedAt > BACKLOG_MEMORY_MS) latest.delete(userId);
    }
  }

  return {
    /** Runs a backlog push for the user, recording every message id it sends. */
    async record(userId: string, push: (sent: (messageId: string) => void) => Promise<void>) {
      forget();
      let finish = (): void => {};
      const backlog: Backlog = {
        ids: new Set(),
        finishedAt: Infinity,
        done: new Promise<void>((resolve) => (finish = resolve)),
      };
      latest.set(userId, backlog);
      try {
        await push((messageId) => backlog.ids.add(messageId));
      } finally {
        backlog.finishedAt = now();
        finish();
      }
    },

    /** True when the user's latest backlog push (waited for if still running) sent this one. */
    async alreadyPushed(userId: string, messageId: string): Promise<boolean> {
      const backlog = latest.get(userId);
      if (!backlog) return false;
      await backlog.done;
      return now() - backlog.finishedAt <= BACKLOG_MEMORY_MS && backlog.ids.has(messageId);
    },
  };
}
