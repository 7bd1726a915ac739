import { describe, expect, it } from 'vitest';
import { createJobRunner, type Job } from '#src/jobs.js';

const EVERY_MS = 10;

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** Resolves after `n` more ticks of an interval as long as the jobs': a barrier, not a guess. */
function ticks(n: number): Promise<void> {
  return new Promise((resolve) => {
    let seen = 0;
    const timer = setInterval(() => {
      if (++seen < n) return;
      clearInterval(timer);
      resolve();
    }, EVERY_MS);
  });
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await ticks(1);
}

function recordingLog() {
  const errors: { obj: Record<string, unknown>; msg: string }[] = [];
  return {
    errors,
    error: (obj: object, msg: string) => void errors.push({ obj: { ...obj }, msg }),
  };
}

/** A runner of one job, `name`, due every EVERY_MS, started. */
async function startEveryTick(name: string, run: Job['run'], log = recordingLog()) {
  const runner = createJobRunner([{ name, everyMs: EVERY_MS, run }], log);
  await runner.start();
  return runner;
}

const activeTimers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;

describe('the background job runner', () => {
  it('logs a failing job with its name, never throws, and runs it again at its next tick', async () => {
    const log = recordingLog();
    let runs = 0;
    const runner = await startEveryTick(
      'flaky',
      async () => {
        runs += 1;
        throw new Error('disk full');
      },
      log,
    );
    await until(() => runs >= 2);
    await runner.stop();
    expect(log.errors[0]).toMatchObject({ msg: 'background job flaky failed' });
    expect(log.errors[0]!.obj.job).toBe('flaky');
    expect((log.errors[0]!.obj.err as Error).message).toBe('disk full');
  });

  it('does not start a job again while its previous run is still going', async () => {
    const gate = deferred();
    let runs = 0;
    const runner = await startEveryTick('slow', () => {
      runs += 1;
      return gate.promise;
    });
    await until(() => runs === 1);
    await ticks(5); // five more ticks of the same interval came and went
    expect(runs).toBe(1);
    gate.resolve();
    await until(() => runs === 2);
    await runner.stop();
  });

  it('stop() clears the timers and waits for the run in progress', async () => {
    const gate = deferred();
    let runs = 0;
    let finished = false;
    const runner = await startEveryTick('backup', async () => {
      runs += 1;
      await gate.promise;
      finished = true;
    });
    await until(() => runs === 1);
    const stopped = runner.stop().then(() => 'stopped');
    const first = await Promise.race([stopped, new Promise((r) => setImmediate(r, 'pending'))]);
    expect(first).toBe('pending');
    gate.resolve();
    expect(await stopped).toBe('stopped');
    expect(finished).toBe(true);
    await ticks(5);
    expect(runs).toBe(1);
  });

  it('runs the atStart jobs once before start() resolves, on timers that keep nobody alive', async () => {
    const before = activeTimers();
    let cleaned = 0;
    const runner = createJobRunner(
      [
        { name: 'cleanup', everyMs: 3600_000, atStart: true, run: async () => void cleaned++ },
        { name: 'hourly', everyMs: 3600_000, run: () => {} },
      ],
      recordingLog(),
    );
    await runner.start();
    expect(cleaned).toBe(1);
    expect(activeTimers()).toBe(before); // unref'd: an idle server can still exit
    await runner.stop();
  });
});
