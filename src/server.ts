import { buildApp } from './app.js';
import { ConfigError, loadConfigFromEnvironment, type Config } from './config.js';

/** Process entry: load config, build the app, listen, shut down cleanly on SIGTERM/SIGINT. */
async function main(): Promise<void> {
  // whatever a library creates under the data dir is private to the server's user (0600/0700)
  process.umask(0o077);
  let config: Config;
  try {
    config = loadConfigFromEnvironment();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`larder: invalid configuration: ${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }

  const app = await buildApp(config);
  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), 10_000);
    force.unref();
    app.close().then(
      () => process.exit(0),
      (err) => {
        app.log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
  // Fastify hands its listen options to Node's server.listen, which knows reusePort (Node 22.12+,
  // 23.1+); Fastify's types do not list it yet
  const listen = { host: config.host, port: config.port, reusePort: config.reusePort };
  await app.listen(listen);
}

main().catch((err: unknown) => {
  process.stderr.write(
    `larder: failed to start: ${err instanceof Error ? err.message : String(err)}\n`,
  );
  process.exit(1);
});
