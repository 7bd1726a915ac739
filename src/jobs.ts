import { KEY_REFRESH_MS } from './auth/keys.js';
import type { AppContext } from './plugins/services.js';
import { HEARTBEAT_MS } from './realtime/hub.js';
import { removeStaleTempFiles, tempMaxAgeMs } from './temp-files.js';

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

const HOUR_MS = 3600_000;
const MINUTE_MS = 60_000;
/** Due webhook deliveries (first attempts and retries) are looked for this often. */
const WEBHOOK_TICK_MS = 15_000;
/** Due push deliveries (retries, Retry-After, rate-limited ones) are looked for this often. */
const PUSH_TICK_MS = 5_000;
/** Expired login-failure counters are swept once per window, but not more often than this. */
const MIN_THROTTLE_SWEEP_MS = 60_000;

/**
 * Every periodic task of the application, in one list. Each job does one pass and returns; the
 * runner owns the timers. Jobs that keep the data tidy run hourly; backups check every minute at
 * most (the service decides whether one is due); socket jobs run every heartbeat.
 */
export function larderJobs(larder: AppContext, options: { heartbeatMs?: number } = {}): Job[] {
  const { config, auth, inventory, resources, backups, hub, loginThrottle, expiry, webhooks } =
    larder;
  const { push, signingKeys } = larder;
  const heartbeatMs = options.heartbeatMs ?? HEARTBEAT_MS;
  const jobs: Job[] = [
    // with the refresh tokens, the signing keys whose access tokens have all expired
    {
      name: 'refresh-token-pruning',
      everyMs: HOUR_MS,
      run: () => Promise.all([auth.pruneExpired(), signingKeys.pruneRetired()]),
    },
    // keys rotated elsewhere are heard of over the bus; this catches an event that was lost
    { name: 'signing-key-refresh', everyMs: KEY_REFRESH_MS, run: () => signingKeys.reload() },
    { name: 'oidc-request-pruning', everyMs: HOUR_MS, run: () => larder.oidc?.pruneExpired() },
    { name: 'inventory-history-pruning', everyMs: HOUR_MS, run: () => inventory.pruneHistory() },
    // also at start: files left by a previous run, even after a long downtime
    {
      name: 'staging-cleanup',
      everyMs: HOUR_MS,
      atStart: true,
      run: () => resources.cleanStaging(),
    },
    // also at start: temp files of a process killed mid-write (upload, backup, version.json)
    {
      name: 'temp-file-cleanup',
      everyMs: HOUR_MS,
      atStart: true,
      run: () =>
        removeStaleTempFiles(
          {
            dataDir: config.dataDir,
            resourcesDir: resources.storage.resourcesDir,
            stagingRoot: resources.storage.stagingRoot,
            backupDir: backups.workDir,
          },
          tempMaxAgeMs(config.server.requestTimeoutMs),
          larder.clock(),
        ),
    },
    // every minute: each inventory's digest is claimed (one instance wins) once its hour comes
    { name: 'expiry-digest', everyMs: MINUTE_MS, run: () => expiry.runDigests() },
    { name: 'webhook-delivery', everyMs: WEBHOOK_TICK_MS, run: () => webhooks.deliverDue() },
    // first attempts start when queued; this pass takes retries and what waited for its turn
    { name: 'push-delivery', everyMs: PUSH_TICK_MS, run: () => push.outbox.deliverDue() },
    { name: 'push-delivery-pruning', everyMs: HOUR_MS, run: () => push.outbox.prune() },
    { name: 'socket-heartbeat', everyMs: heartbeatMs, run: () => hub.heartbeat() },
    { name: 'presence-snapshot', everyMs: heartbeatMs, run: () => hub.broadcastPresence() },
    {
      name: 'login-throttle-eviction',
      everyMs: Math.max(config.loginRateWindowSeconds * 1000, MIN_THROTTLE_SWEEP_MS),
      run: () => loginThrottle.evictExpired(),
    },
  ];
  if (backups.scheduleTickMs !== null) {
    jobs.push({
      name: 'scheduled-backup',
      everyMs: backups.scheduleTickMs,
      run: () => backups.runIfDue(),
    });
  }
  return jobs;
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

export type JobRunner = ReturnType<typeof createJobRunner>;
