/**
 * Runs the tasks of one key one after another, in arrival order; tasks of different keys run
 * at once. For PostgreSQL writes that lock one row (an inventory's): a write waits its turn here,
 * holding no pooled connection and no open transaction, instead of inside PostgreSQL on the row
 * lock while the transaction ahead of it waits on this process between statements. Under CPU
 * load those waits grew past the query bound (docs/performance.md, "PostgreSQL under CPU load").
 * Instances still meet on the row lock itself; this only keeps one instance's writers in line.
 */
export function createKeyedQueue() {
  const tails = new Map<string, Promise<unknown>>();
  return {
    run<T>(key: string, task: () => Promise<T>): Promise<T> {
      const previous = tails.get(key) ?? Promise.resolve();
      const result = previous.then(task, task);
      const tail = result.then(
        () => {},
        () => {},
      );
      tails.set(key, tail);
      void tail.then(() => {
        if (tails.get(key) === tail) tails.delete(key);
      });
      return result;
    },
    /** Keys with a task running or waiting (tests). */
    size: () => tails.size,
  };
}
