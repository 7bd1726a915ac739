import underPressure from '@fastify/under-pressure';
import type { FastifyInstance } from 'fastify';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { AppError } from './errors.js';

/** What an overloaded process tells clients to wait before retrying (seconds). */
const OVERLOAD_RETRY_AFTER_S = 5;
/** How often the event-loop delay and the heap are sampled (ms). */
const OVERLOAD_SAMPLE_MS = 500;
/** Samples in a row over the delay threshold before requests are refused: one stall is not load. */
const SUSTAINED_SAMPLES = 2;

class Overloaded extends AppError {
  constructor() {
    super(
      503,
      'unavailable',
      'The server is overloaded; retry later',
      {},
      { 'retry-after': String(OVERLOAD_RETRY_AFTER_S) },
    );
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    /** mean event-loop delay (ms) over the last sample, and whether requests are being refused */
    loadState(): { eventLoopDelayMs: number; overloaded: boolean };
  }
}

/**
 * @fastify/under-pressure on the root instance, first of the hooks: while the mean event-loop
 * delay stays over `maxDelayMs` for SUSTAINED_SAMPLES samples, or the heap over `maxHeapBytes`,
 * every request (socket upgrades included) gets 503 `unavailable` with Retry-After at once
 * instead of queueing more work. A route opts out with `config: { pressureHandler: () => {} }`
 * (GET /health does, and reports the figures). 0 disables a threshold.
 */
export async function refuseWhenOverloaded(
  app: FastifyInstance,
  limits: { maxDelayMs: number; maxHeapBytes: number },
): Promise<void> {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  let delayMs = 0;
  let over = 0;
  const sample = async (): Promise<boolean> => {
    // mean of the samples since the last call, less the timer resolution (as under-pressure does)
    delayMs = histogram.count > 0 ? Math.max(0, histogram.mean / 1e6 - 10) : 0;
    histogram.reset();
    over = limits.maxDelayMs > 0 && delayMs > limits.maxDelayMs ? over + 1 : 0;
    return over < SUSTAINED_SAMPLES;
  };
  app.decorate('loadState', () => ({
    eventLoopDelayMs: Math.round(delayMs * 10) / 10,
    overloaded: app.isUnderPressure(),
  }));
  app.addHook('onClose', async () => histogram.disable());
  await app.register(underPressure, {
    maxHeapUsedBytes: limits.maxHeapBytes,
    healthCheck: sample,
    healthCheckInterval: OVERLOAD_SAMPLE_MS,
    sampleInterval: OVERLOAD_SAMPLE_MS,
    retryAfter: OVERLOAD_RETRY_AFTER_S,
    customError: Overloaded,
  });
}
