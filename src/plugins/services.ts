import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { createServices, type AppContext } from '#src/composition.js';
import type { Config } from '#src/config.js';
import type { Feature } from '#src/feature.js';
import { logSeedAdmin } from '#src/http/logging.js';

declare module 'fastify' {
  interface FastifyInstance {
    larder: AppContext;
    /** what each feature registered: its routes, jobs, start and close */
    features: Feature[];
  }
}

/**
 * The service graph (src/composition.ts) over the app's database, bus and log, decorated as
 * `app.larder` and closed with the app. Creates the seed admin and says so in the log. Nothing
 * here starts a timer: the jobs plugin runs the features' jobs.
 */
async function services(
  app: FastifyInstance,
  options: { config: Config; clock: () => number },
): Promise<void> {
  const { config, clock } = options;
  const { services, features, start, close } = createServices({
    config,
    database: app.database,
    bus: app.bus,
    log: app.log,
    clock,
  });
  app.decorate('larder', services);
  app.decorate('features', features);
  // a backup asked for over HTTP finishes, and its response goes out, before connections close
  app.addHook('preClose', () => services.backups.drain());
  app.addHook('onClose', () => close());

  const { users, push } = services;
  logSeedAdmin(app.log, await users.ensureSeedAdmin(config.adminUsername, config.adminPassword));
  await push.vapid(); // the key pair exists before the first request asks for it
  await start(); // so do the signing keys and the published version
}

export default fp(services, { name: 'services', dependencies: ['database'] });
