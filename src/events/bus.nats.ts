import fs from 'node:fs';
import type { FastifyBaseLogger } from 'fastify';
import { NO_BUS_SECURITY, type BusSecurity } from '#src/config.js';
import type { NatsConnection, NodeConnectionOptions } from '@nats-io/transport-node';
import type { BusEvent, EventBus } from './bus.js';
import { Subscribers, encodeEvent, retryDelay, withPublishAfterCommit } from './bus.js';
import { createBatcher } from './batch.js';

/**
 * The subject of one deployment's events: its database and schema, as NOTIFY channels are per
 * database and `larder_events_<schema>` within it, so two deployments on one NATS server never
 * hear each other unless they share both (then they share the data too). A schema is already a
 * plain identifier; a database name may hold anything, so it is percent-encoded down to letters,
 * digits, `_`, `-` and `%` (NATS splits subjects on `.` and treats `*` and `>` as wildcards).
 */
export function natsSubject(database: string, schema: string): string {
  const token = (s: string) =>
    encodeURIComponent(s).replace(
      /[^A-Za-z0-9_%-]/g,
      (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`,
    );
  return `larder.events.${token(database)}.${token(schema)}`;
}

/** The URL split into what the client takes: the server, and the credentials it carries. */
export function natsOptions(url: string): { server: string; auth: Partial<NodeConnectionOptions> } {
  const parsed = new URL(url);
  const server = `${parsed.hostname}:${parsed.port || '4222'}`;
  const user = decodeURIComponent(parsed.username);
  const pass = decodeURIComponent(parsed.password);
  // nats://secret@host is a token, nats://user:password@host a user (the NATS URL convention)
  const auth = user && pass ? { user, pass } : user ? { token: user } : {};
  return { server, auth };
}

/**
 * What the client is given to sign in and to check the server (LARDER_BUS_*, src/config.ts):
 * the URL's credentials, or a user and password, a token, a `.creds` file or an nkey seed; TLS
 * with the CA and client certificate as files. A file that cannot be read fails the start,
 * naming its variable.
 */
async function natsSecurity(
  url: string,
  security: BusSecurity,
): Promise<{ server: string; options: Partial<NodeConnectionOptions> }> {
  const { server, auth } = natsOptions(url);
  const { credsAuthenticator, nkeyAuthenticator } = await import('@nats-io/transport-node');
  const read = (file: string, variable: string) => {
    try {
      return fs.readFileSync(file);
    } catch (err) {
      throw new Error(`${variable}: cannot read ${file}: ${(err as NodeJS.ErrnoException).code}`);
    }
  };
  const options: Partial<NodeConnectionOptions> = { ...auth };
  if (security.user !== null)
    Object.assign(options, { user: security.user, pass: security.password });
  if (security.token !== null) options.token = security.token;
  if (security.credsFile !== null) {
    options.authenticator = credsAuthenticator(read(security.credsFile, 'LARDER_BUS_CREDS_FILE'));
  }
  if (security.nkeySeedFile !== null) {
    const seed = read(security.nkeySeedFile, 'LARDER_BUS_NKEY_SEED_FILE').toString('utf8').trim();
    options.authenticator = nkeyAuthenticator(new TextEncoder().encode(seed));
  }
  if (security.tlsCa !== null || security.tlsCert !== null) {
    for (const [file, variable] of [
      [security.tlsCa, 'LARDER_BUS_TLS_CA'],
      [security.tlsCert, 'LARDER_BUS_TLS_CERT'],
      [security.tlsKey, 'LARDER_BUS_TLS_KEY'],
    ] as const) {
      if (file !== null) read(file, variable);
    }
    options.tls = {
      ...(security.tlsCa !== null && { caFile: security.tlsCa }),
      ...(security.tlsCert !== null && { certFile: security.tlsCert, keyFile: security.tlsKey! }),
    };
  }
  return { server, options };
}

export interface NatsBusOptions {
  url: string;
  /** how to sign in and check the server; none beyond the URL's credentials when omitted */
  security?: BusSecurity;
  /** the PostgreSQL database and schema the instances share */
  database: string;
  schema: string;
  log: FastifyBaseLogger;
}

/** Events confirmed by one round trip to the server; the rest wait for the next. */
const MAX_EVENTS_PER_FLUSH = 1000;
/** A publish the server has not confirmed by then fails (a dead server is not noticed at once). */
const CONFIRM_TIMEOUT_MS = 5000;
/** `close()` waits this long for the events in flight before it drops the connection. */
const DRAIN_TIMEOUT_MS = 2000;

/**
 * Several hosts: every event goes through NATS as JSON on the deployment's subject to every other
 * instance; this one hears its own at once (Subscribers.local), and the server does not echo them
 * back to the connection that published them (`noEcho`).
 *
 * Core NATS, not JetStream: delivery is at most once, as with NOTIFY. An event lost while an
 * instance is disconnected is not replayed; clients catch up at their next sync, as they do when
 * a NOTIFY is lost. A publish resolves only once the server has answered a PING sent after it
 * (so it holds the event); while disconnected the client would buffer events and discard them on
 * reconnecting, so a publish then is refused at once.
 */
export async function createNatsEventBus(options: NatsBusOptions): Promise<EventBus> {
  const { log } = options;
  const { connect } = await import('@nats-io/transport-node');
  const { server, options: auth } = await natsSecurity(
    options.url,
    options.security ?? NO_BUS_SECURITY,
  );
  const subject = natsSubject(options.database, options.schema);
  let nc: NatsConnection;
  /** attempts since the connection was lost (the wait before the next one grows) */
  let attempts = 0;
  try {
    nc = await connect({
      servers: server,
      ...auth,
      name: 'larder',
      noEcho: true,
      // the client reconnects by itself, forever (its default gives up after 10 attempts)
      maxReconnectAttempts: -1,
      // each wait doubles up to RETRY_MAX_MS, with jitter (src/events/bus.ts)
      reconnectDelayHandler: () => retryDelay(attempts++),
      timeout: 5000,
      // a server that vanished without closing the connection is noticed within ~30 s
      pingInterval: 10_000,
      maxPingOut: 3,
    });
  } catch (err) {
    throw new Error(`the event bus at nats://${server} is unreachable: ${(err as Error).message}`);
  }
  const subscribers = new Subscribers(log);
  let connected = true;
  let closed = false;
  void (async () => {
    for await (const status of nc.status()) {
      if (status.type === 'disconnect') {
        connected = false;
        log.warn({ server }, 'event bus connection lost; reconnecting');
      } else if (status.type === 'reconnect') {
        connected = true;
        attempts = 0;
        log.info({ server }, 'event bus reconnected');
        subscribers.reconnected();
      } else if (status.type === 'error') {
        log.warn({ err: status.error }, 'event bus error');
      }
    }
  })().catch((err: unknown) => log.error({ err }, 'event bus status stopped'));

  nc.subscribe(subject, {
    callback(err, msg) {
      if (err) return log.warn({ err }, 'event bus subscription error');
      let event: BusEvent;
      try {
        event = msg.json<BusEvent>();
      } catch (err) {
        return log.warn({ err }, 'unreadable event on the bus');
      }
      subscribers.dispatch(event);
    },
  });
  // the server has the subscription once it answers a PING sent after it: from then on this
  // instance hears every event published, as the NOTIFY bus does once its LISTEN has answered
  // (without, another instance's first events could pass before it: test/events/nats-bus.test.ts)
  try {
    await deadline(
      nc.flush(),
      CONFIRM_TIMEOUT_MS,
      'the event bus did not confirm the subscription',
    );
  } catch (err) {
    await nc.close().catch(() => {});
    throw err;
  }

  const sender = createBatcher<string>(async (payloads) => {
    if (!connected) throw new Error('the event bus is disconnected');
    for (const payload of payloads) nc.publish(subject, payload);
    await deadline(nc.flush(), CONFIRM_TIMEOUT_MS, 'the event bus did not confirm the event');
  }, MAX_EVENTS_PER_FLUSH);

  return withPublishAfterCommit(
    {
      async publish(event) {
        const payload = encodeEvent(event);
        if (closed) throw new Error('the event bus is closed');
        if (!connected) throw new Error('the event bus is disconnected');
        subscribers.local(event);
        return sender.enqueue(payload);
      },
      subscribe: (handler) => subscribers.add(handler),
      onReconnect: (handler) => subscribers.addReconnect(handler),
      state: () => (connected || closed ? 'ok' : 'reconnecting'),
      async close() {
        if (closed) return;
        closed = true;
        sender.rejectWaiting(new Error('the event bus is closed'));
        // drain: the events received are handed out and those sent are flushed; a server that
        // is away would keep drain waiting, so after a while the connection is just closed
        await deadline(nc.drain(), DRAIN_TIMEOUT_MS, 'the event bus did not drain').catch(() => {});
        if (!nc.isClosed()) await nc.close();
      },
    },
    log,
  );
}

function deadline<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} within ${ms} ms`)), ms);
  });
  promise.catch(() => {}); // when it loses the race, its rejection is no one's business
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}
