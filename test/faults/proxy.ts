import net from 'node:net';

/**
 * What a fault proxy does with traffic:
 * - `open`: relays both ways, as if it were not there;
 * - `refuse`: cuts every open connection and closes each new one at once (a database or bus
 *   that restarts, a host that is down);
 * - `blackhole`: keeps connections open but drops every byte both ways, and accepts new ones
 *   that never hear back (a network cut that drops packets).
 */
type ProxyMode = 'open' | 'refuse' | 'blackhole';

export interface FaultProxy {
  port: number;
  /** `target` with its host and port replaced by the proxy's */
  url: string;
  set(mode: ProxyMode): void;
  /** connections accepted so far */
  accepted(): number;
  close(): Promise<void>;
}

/**
 * A TCP proxy the test owns in front of a shared service (PostgreSQL, NATS, the S3 peer), so a
 * test can cut it without ever stopping the service itself.
 */
export async function startFaultProxy(target: string): Promise<FaultProxy> {
  const to = new URL(target);
  const targetPort = Number(to.port || { 'postgres:': 5432, 'nats:': 4222 }[to.protocol] || 80);
  let mode: ProxyMode = 'open';
  let accepted = 0;
  const pairs = new Set<{ client: net.Socket; upstream: net.Socket; lost: boolean }>();
  const server = net.createServer((client) => {
    accepted++;
    client.on('error', () => {});
    if (mode === 'refuse') {
      client.destroy();
      return;
    }
    const upstream = net.connect(targetPort, to.hostname);
    upstream.on('error', () => {});
    const pair = { client, upstream, lost: false };
    pairs.add(pair);
    const relay = (from: net.Socket, into: net.Socket) => {
      from.on('data', (chunk) => {
        if (mode === 'open' && !pair.lost) into.write(chunk);
        else pair.lost = true;
      });
      from.on('close', () => {
        pairs.delete(pair);
        into.destroy();
      });
    };
    relay(client, upstream);
    relay(upstream, client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  const url = new URL(target);
  url.host = `127.0.0.1:${port}`;
  return {
    port,
    url: url.toString(),
    set(next) {
      mode = next;
      // refused: every connection is cut. Opened again: a connection that lost bytes in the
      // blackhole cannot resume its protocol sanely, so it is cut too (as TCP would, later)
      for (const pair of pairs) {
        if (next === 'refuse' || (next === 'open' && pair.lost)) {
          pair.client.destroy();
          pair.upstream.destroy();
        }
      }
    },
    accepted: () => accepted,
    close: () =>
      new Promise<void>((resolve) => {
        for (const { client, upstream } of pairs) {
          client.destroy();
          upstream.destroy();
        }
        server.close(() => resolve());
      }),
  };
}

/**
 * Sets the proxy to `mode` and waits for `requests` while the fault lasts: the proxy stays so
 * until they have all been answered, so what ended each wait was the server itself (its own
 * timeouts when packets are dropped, the refusal when connections are refused), never the end
 * of the fault. `order` lists what happened: `[mode, 'answered']` when the server answered on
 * its own. Should the answers still be outstanding after `patienceMs` (several times any
 * timeout of the server's: this is the hang the tests look for), the proxy is opened so the
 * suite can go on, and `order` says so before 'answered'. The caller lifts the fault.
 */
export async function answeredDuringFault<T>(
  proxy: FaultProxy,
  mode: Exclude<ProxyMode, 'open'>,
  requests: () => Promise<T>,
  patienceMs = 40_000,
): Promise<{ answers: T; order: string[] }> {
  const order: string[] = [mode];
  proxy.set(mode);
  const patience = setTimeout(() => {
    order.push('opened: no answer while the fault lasted');
    proxy.set('open');
  }, patienceMs);
  try {
    const answers = await requests();
    order.push('answered');
    return { answers, order };
  } finally {
    clearTimeout(patience);
  }
}
