/** A periodic task. `atStart` also runs it once while the app gets ready (awaited). */
export interface Job {
  name: string;
  everyMs: number;
  atStart?: boolean;
  run: () => unknown;
}

export interface JobLog {
  error(obj: object, msg: string): void;
}

/**
 * Runs named jobs on unref'd timers (they never keep the process alive). A failure is logged with
 * the job's name and never thrown; a job still running when its next tick comes is not started
 * again; stop() clears the timers and waits for the runs in progress.
 */
export function createJobRunner(jobs: Job[], log: JobLog) {
  const timers: NodeJS.Timeout[] = [];
  const running = new Map<string, Promise<void>>();
  let state: 'idle' | 'started' | 'stopped' = 'idle';

  function runOnce(job: Job): Promise<void> {
    const current = running.get(job.name);
    if (current) return current;
    const run = (async () => {
      try {
        await job.run();
      } catch (err) {
        log.error({ err, job: job.name }, `background job ${job.name} failed`);
      }
    })();
    running.set(job.name, run);
    void run.finally(() => running.delete(job.name));
    return run;
  }

  return {
    /** Starts every timer, then runs the `atStart` jobs once and waits for them. */
    async start(): Promise<void> {
      if (state !== 'idle') return;
      state = 'started';
      for (const job of jobs) {
        const timer = setInterval(() => void runOnce(job), job.everyMs);
        timer.unref();
        timers.push(timer);
      }
      await Promise.all(jobs.filter((job) => job.atStart).map(runOnce));
    },

    async stop(): Promise<void> {
      state = 'stopped';
      for (const timer of timers.splice(0)) clearInterval(timer);
      await Promise.all(running.values());
    },
  };
}
