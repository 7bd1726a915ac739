import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, NO_BUS_SECURITY, loadConfig, type BusSecurity } from '#src/config.js';
import type { BusEvent } from '#src/events/bus.js';
import { createNatsEventBus } from '#src/events/bus.nats.js';
import { freePort } from '#test/helpers/tcp.js';
import { waitFor } from '#test/helpers/ws.js';

const NATS_SERVER = '/usr/sbin/nats-server';
const HAS_NATS_SERVER = fs.existsSync(NATS_SERVER);
const HAS_OPENSSL = spawnSync('openssl', ['version']).status === 0;
const quiet = { warn() {}, error() {}, info() {}, debug() {} } as never;

describe('LARDER_BUS_* sign-in and TLS settings', () => {
  const base = { LARDER_DATABASE_URL: 'postgres://db/larder', LARDER_BUS_URL: 'nats://nats.lan' };

  it('are read only with LARDER_BUS_URL, files relative to the working directory', () => {
    expect(loadConfig({ LARDER_BUS_TOKEN: 't' }).bus).toEqual(NO_BUS_SECURITY);
    const config = loadConfig(
      {
        ...base,
        LARDER_BUS_NKEY_SEED_FILE: 'secrets/larder.nk',
        LARDER_BUS_TLS_CA: '/etc/nats/ca.pem',
        LARDER_BUS_TLS_CERT: 'client.pem',
        LARDER_BUS_TLS_KEY: 'client-key.pem',
      },
      '/srv/larder',
    );
    expect(config.bus).toEqual({
      ...NO_BUS_SECURITY,
      nkeySeedFile: '/srv/larder/secrets/larder.nk',
      tlsCa: '/etc/nats/ca.pem',
      tlsCert: '/srv/larder/client.pem',
      tlsKey: '/srv/larder/client-key.pem',
    });
    expect(loadConfig({ ...base, LARDER_BUS_USER: 'u', LARDER_BUS_PASSWORD: ' p ' }).bus).toEqual({
      ...NO_BUS_SECURITY,
      user: 'u',
      password: ' p ', // a password is taken as it is
    });
  });

  it('refuse two ways of signing in, and half a pair, without echoing a secret', () => {
    const refused: [Record<string, string>, RegExp][] = [
      [{ LARDER_BUS_TOKEN: 'sekrit', LARDER_BUS_CREDS_FILE: 'x.creds' }, /one way, not /],
      [
        { LARDER_BUS_URL: 'nats://u:sekrit@nats.lan', LARDER_BUS_TOKEN: 'sekrit' },
        /credentials in LARDER_BUS_URL and LARDER_BUS_TOKEN/,
      ],
      [{ LARDER_BUS_USER: 'u' }, /^LARDER_BUS_USER: must be set with LARDER_BUS_PASSWORD/],
      [{ LARDER_BUS_TLS_CERT: 'c.pem' }, /^LARDER_BUS_TLS_CERT: must be set with/],
    ];
    for (const [env, message] of refused) {
      const load = () => loadConfig({ ...base, ...env });
      expect(load).toThrow(ConfigError);
      expect(load).toThrow(message);
      try {
        load();
      } catch (err) {
        expect((err as Error).message).not.toContain('sekrit');
      }
    }
  });
});

/** A NATS server of the test's own, on a free port, with the given flags. */
async function startNatsServer(args: string[]) {
  const port = await freePort();
  const child: ChildProcess = spawn(NATS_SERVER, ['-a', '127.0.0.1', '-p', String(port), ...args], {
    stdio: 'ignore',
  });
  await waitFor(
    () =>
      new Promise<boolean>((resolve) => {
        const s = net.connect(port, '127.0.0.1', () => {
          s.destroy();
          resolve(true);
        });
        s.on('error', () => resolve(false));
      }),
    10_000,
  );
  return { url: `nats://127.0.0.1:${port}`, stop: () => child.kill() };
}

/** A bus with these settings publishes an event and hears it back. */
async function roundTrip(url: string, security: BusSecurity) {
  const bus = await createNatsEventBus({ url, security, database: 'db', schema: 's', log: quiet });
  try {
    const heard: BusEvent[] = [];
    bus.subscribe((event) => heard.push(event));
    const event: BusEvent = { type: 'inventoryUpdated', inventoryId: 'inv', revision: 1 };
    await bus.publish(event);
    await waitFor(() => heard.length === 1);
    expect(heard).toEqual([event]);
  } finally {
    await bus.close();
  }
}

describe.skipIf(!HAS_NATS_SERVER)(
  `a NATS server that asks for credentials${HAS_NATS_SERVER ? '' : ` (needs ${NATS_SERVER})`}`,
  () => {
    it('user and password: signs in with them, and a wrong password fails the start', async () => {
      const server = await startNatsServer(['--user', 'larder', '--pass', 'bus-pass']);
      try {
        await roundTrip(server.url, { ...NO_BUS_SECURITY, user: 'larder', password: 'bus-pass' });
        await expect(
          roundTrip(server.url, { ...NO_BUS_SECURITY, user: 'larder', password: 'wrong' }),
        ).rejects.toThrow(/is unreachable: .*(Authorization|auth)/i);
      } finally {
        server.stop();
      }
    });

    it('a token: signs in with it', async () => {
      const server = await startNatsServer(['--auth', 'bus-token']);
      try {
        await roundTrip(server.url, { ...NO_BUS_SECURITY, token: 'bus-token' });
        await expect(roundTrip(server.url, NO_BUS_SECURITY)).rejects.toThrow(/is unreachable/);
      } finally {
        server.stop();
      }
    });

    it("with permissions limited to Larder's subject it works, and another user cannot publish there", async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'larder-nats-conf-'));
      const subject = 'larder.events.db.s'; // database "db", schema "s", as roundTrip uses
      fs.writeFileSync(
        path.join(dir, 'nats.conf'),
        `authorization { users = [
        { user: larder, password: lp, permissions: { publish: ["${subject}"], subscribe: ["${subject}"] } }
        { user: other, password: op, permissions: { publish: { deny: ["larder.events.>"] }, subscribe: { deny: ["larder.events.>"] } } }
      ] }\n`,
      );
      const server = await startNatsServer(['-c', path.join(dir, 'nats.conf')]);
      try {
        await roundTrip(server.url, { ...NO_BUS_SECURITY, user: 'larder', password: 'lp' });
        // the other user's forged event never reaches Larder's subscribers
        const bus = await createNatsEventBus({
          url: server.url,
          security: { ...NO_BUS_SECURITY, user: 'larder', password: 'lp' },
          database: 'db',
          schema: 's',
          log: quiet,
        });
        const heard: BusEvent[] = [];
        bus.subscribe((event) => heard.push(event));
        const { connect } = await import('@nats-io/transport-node');
        const other = await connect({
          servers: server.url.slice('nats://'.length),
          user: 'other',
          pass: 'op',
        });
        other.publish(
          subject,
          JSON.stringify({ type: 'inventoryUpdated', inventoryId: 'x', revision: 9 }),
        );
        await other.flush().catch(() => {});
        const real: BusEvent = { type: 'inventoryUpdated', inventoryId: 'inv', revision: 2 };
        await bus.publish(real);
        await waitFor(() => heard.length > 0);
        expect(heard).toEqual([real]);
        await other.close();
        await bus.close();
      } finally {
        server.stop();
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });

    it('a seed file that cannot be read fails the start, naming its variable', async () => {
      await expect(
        roundTrip('nats://127.0.0.1:1', { ...NO_BUS_SECURITY, nkeySeedFile: '/nonexistent/x.nk' }),
      ).rejects.toThrow('LARDER_BUS_NKEY_SEED_FILE: cannot read /nonexistent/x.nk: ENOENT');
    });
  },
);

describe.skipIf(!HAS_NATS_SERVER || !HAS_OPENSSL)(
  `a NATS server with TLS that verifies clients${HAS_NATS_SERVER && HAS_OPENSSL ? '' : ` (needs ${NATS_SERVER} and openssl)`}`,
  () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'larder-nats-tls-'));
    const file = (name: string) => path.join(dir, name);
    let server: Awaited<ReturnType<typeof startNatsServer>>;
    beforeAll(async () => {
      const openssl = (...args: string[]) => {
        const r = spawnSync('openssl', args, { cwd: dir, encoding: 'utf8' });
        if (r.status !== 0) throw new Error(r.stderr);
      };
      openssl(
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=test-ca',
        '-keyout',
        'ca-key.pem',
        '-out',
        'ca.pem',
      );
      fs.writeFileSync(file('san.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
      for (const name of ['server', 'client']) {
        openssl(
          'req',
          '-newkey',
          'rsa:2048',
          '-nodes',
          '-subj',
          `/CN=${name}`,
          '-keyout',
          `${name}-key.pem`,
          '-out',
          `${name}.csr`,
        );
        openssl(
          'x509',
          '-req',
          '-in',
          `${name}.csr`,
          '-CA',
          'ca.pem',
          '-CAkey',
          'ca-key.pem',
          '-CAcreateserial',
          '-days',
          '1',
          '-extfile',
          'san.ext',
          '-out',
          `${name}.pem`,
        );
      }
      server = await startNatsServer([
        '--tlsverify',
        '--tlscert',
        file('server.pem'),
        '--tlskey',
        file('server-key.pem'),
        '--tlscacert',
        file('ca.pem'),
      ]);
    });
    afterAll(() => {
      server?.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    });

    it('connects with LARDER_BUS_TLS_CA and a client certificate; without the certificate it fails', async () => {
      const tls = { ...NO_BUS_SECURITY, tlsCa: file('ca.pem') };
      await roundTrip(server.url, {
        ...tls,
        tlsCert: file('client.pem'),
        tlsKey: file('client-key.pem'),
      });
      await expect(roundTrip(server.url, tls)).rejects.toThrow(/is unreachable/);
    });
  },
);
