/** How long a backlog is remembered: far longer than any event takes to cross the bus. */
const BACKLOG_MEMORY_MS = 60_000;

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
  /** Finished backlogs in the order they finished (re-inserted on finishing), oldest first. */
  const finished = new Map<string, Backlog>();

  /** Drops what finished over a minute ago: stops at the first younger one (O(1) amortized). */
  function forget(): void {
    const limit = now() - BACKLOG_MEMORY_MS;
    for (const [userId, backlog] of finished) {
      if (backlog.finishedAt >= limit) break;
      finished.delete(userId);
      if (latest.get(userId) === backlog) latest.delete(userId);
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
        finished.delete(userId);
        // an empty push has nothing to deduplicate: not remembered (a reconnect storm of users
        // without pending messages keeps nothing)
        if (latest.get(userId) === backlog) {
          if (backlog.ids.size > 0) finished.set(userId, backlog);
          else latest.delete(userId);
        }
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
