/**
 * What @fastify/helmet costs a JSON route, and why Larder applies it per route, not globally.
 *   npx tsx bench/security-headers.ts
 * Builds three apps with the same trivial JSON route: no helmet (the baseline), helmet registered
 * as src/http/security-headers.ts does (global: false; the route does not ask for headers), and
 * helmet global. Prints each one's time per request (app.inject, alternating rounds) as a ratio
 * of the baseline.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import helmet from '@fastify/helmet';
import { registerSecurityHeaders } from '#src/http/security-headers.js';

const ROUNDS = 5;
const REQUESTS = 5_000;

async function build(kind: 'none' | 'per-route' | 'global'): Promise<FastifyInstance> {
  const app = Fastify();
  if (kind === 'per-route') await registerSecurityHeaders(app);
  if (kind === 'global') await app.register(helmet, { strictTransportSecurity: false });
  app.get('/api/thing', async () => ({ id: 'abc', name: 'beans', quantity: 3 }));
  await app.ready();
  return app;
}

async function perRequest(app: FastifyInstance): Promise<number> {
  const start = process.hrtime.bigint();
  for (let i = 0; i < REQUESTS; i++) await app.inject({ url: '/api/thing' });
  return Number(process.hrtime.bigint() - start) / REQUESTS;
}

const kinds = ['none', 'per-route', 'global'] as const;
const apps = await Promise.all(kinds.map(build));
const best = kinds.map(() => Infinity);
for (let round = 0; round < ROUNDS; round++) {
  for (const [i, app] of apps.entries()) best[i] = Math.min(best[i]!, await perRequest(app));
}
for (const [i, kind] of kinds.entries()) {
  console.log(`${kind.padEnd(10)} ${(best[i]! / best[0]!).toFixed(2)}× the baseline`);
}
await Promise.all(apps.map((app) => app.close()));
