import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** What the gauges read at scrape time. */
export interface MetricSources {
  socketCount: () => number;
  pendingMessages: () => Promise<number>;
  /** epoch ms of the newest backup, null when there is none */
  latestBackupAt: () => Promise<number | null>;
  /** backups this instance made that failed their restore drill */
  backupVerifyFailures: () => number;
  clock: () => number;
}

/**
 * One registry per application instance (never prom-client's global one), so several apps in
 * one process — tests, or two instances — keep their numbers apart.
 */
export function createMetrics(sources: MetricSources) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'larder_' });

  const requests = new Counter({
    name: 'larder_http_requests_total',
    help: 'HTTP requests by method, route template and status code',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'larder_http_request_duration_seconds',
    help: 'HTTP request latency by method and route template',
    labelNames: ['method', 'route'] as const,
    buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  new Gauge({
    name: 'larder_websocket_connections',
    help: 'Open /ws/sync sockets on this instance',
    registers: [registry],
    collect() {
      this.set(sources.socketCount());
    },
  });
  new Gauge({
    name: 'larder_messages_pending_delivery',
    help: 'Stored messages not yet delivered to their receiver (whole database)',
    registers: [registry],
    async collect() {
      this.set(await sources.pendingMessages());
    },
  });
  new Gauge({
    name: 'larder_backup_age_seconds',
    help: 'Seconds since the newest server-made backup; -1 when there is none',
    registers: [registry],
    async collect() {
      const at = await sources.latestBackupAt();
      this.set(at === null ? -1 : Math.max(0, (sources.clock() - at) / 1000));
    },
  });

  let verifyFailuresSeen = 0;
  new Counter({
    name: 'larder_backup_verify_failures_total',
    help: 'Restore drills on this instance that failed, on a backup it made or one verified again (kept, flagged, logged as an error)',
    registers: [registry],
    collect() {
      const now = sources.backupVerifyFailures();
      if (now > verifyFailuresSeen) this.inc(now - verifyFailuresSeen);
      verifyFailuresSeen = now;
    },
  });

  const pushSent = new Counter({
    name: 'larder_push_sent_total',
    help: 'Web Push messages a distributor accepted, by event type',
    labelNames: ['event'] as const,
    registers: [registry],
  });
  const pushFailed = new Counter({
    name: 'larder_push_failed_total',
    help: 'Web Push attempts that failed, by reason (an HTTP status, network, given_up...)',
    labelNames: ['reason'] as const,
    registers: [registry],
  });
  const pushRemoved = new Counter({
    name: 'larder_push_subscriptions_removed_total',
    help: 'Push subscriptions removed: gone (the distributor answered 404/410) or by the user',
    labelNames: ['reason'] as const,
    registers: [registry],
  });

  return {
    contentType: registry.contentType,
    /** Web Push counters (src/push/push.delivery.ts and push.send.ts) */
    push: {
      sent: (event: string) => pushSent.inc({ event }),
      failed: (reason: string) => pushFailed.inc({ reason }),
      removed: (reason: 'gone' | 'user') => pushRemoved.inc({ reason }),
    },
    observe(method: string, route: string, status: number, seconds: number): void {
      requests.inc({ method, route, status: String(status) });
      latency.observe({ method, route }, seconds);
    },
    render: () => registry.metrics(),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
