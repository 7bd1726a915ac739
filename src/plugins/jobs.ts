import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { JobOptions } from '#src/feature.js';
import { createJobRunner } from '#src/jobs.js';

/**
 * Every feature's background jobs, as its front module declares them: they start once the app is
 * ready (the staging cleanup runs to the end before it counts as ready) and stop when it closes,
 * before the services and the database close; a job in progress is waited for.
 */
async function jobs(app: FastifyInstance, options: JobOptions): Promise<void> {
  const all = app.features.flatMap((feature) => feature.jobs?.(options) ?? []);
  const runner = createJobRunner(all, app.log);
  app.addHook('onReady', () => runner.start());
  app.addHook('preClose', () => runner.stop());
}

export default fp(jobs, { name: 'jobs', dependencies: ['services'] });
