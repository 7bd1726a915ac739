import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { createJobRunner, larderJobs } from '#src/jobs.js';

/**
 * The background jobs of src/jobs.ts: they start once the app is ready (the staging cleanup runs
 * to the end before it counts as ready) and stop when it closes, before the services and the
 * database close; a job in progress is waited for.
 */
async function jobs(app: FastifyInstance, options: { heartbeatMs?: number }): Promise<void> {
  const runner = createJobRunner(larderJobs(app.larder, options), app.log);
  app.addHook('onReady', () => runner.start());
  app.addHook('preClose', () => runner.stop());
}

export default fp(jobs, { name: 'jobs', dependencies: ['services'] });
