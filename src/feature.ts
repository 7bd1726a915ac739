import type { FastifyBaseLogger, FastifyPluginAsync } from 'fastify';
import type { Config } from './config.js';
import type { Database } from './db/database.js';
import type { EventBus } from './events/bus.js';
import type { Guards } from './http/auth.js';
import type { Job } from './jobs.js';

/** What the composition builds every feature from. */
export interface FeatureDeps {
  config: Config;
  database: Database;
  bus: EventBus;
  log: FastifyBaseLogger;
  clock: () => number;
}

/** What the jobs of a feature may be tuned by (tests shorten the socket heartbeat). */
export interface JobOptions {
  heartbeatMs?: number;
}

/**
 * What a feature registers, once, in its front module (`<feature>.feature.ts`), besides the
 * services it builds for src/composition.ts: its routes (registered by src/plugins/routes.ts, in
 * the order of the composition's list), its periodic jobs (run by src/plugins/jobs.ts), what it
 * loads before the server serves, and what it ends when the app closes (in the reverse order).
 */
export interface Feature {
  name: string;
  routes?(guards: Guards): FastifyPluginAsync[];
  jobs?(options: JobOptions): Job[];
  start?(): Promise<void>;
  close?(): Promise<void> | void;
}
