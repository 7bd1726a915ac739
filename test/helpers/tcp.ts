import net from 'node:net';

/** A loopback port free right now (the server that found it is closed again). */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * Pipes `client` to a new connection to `target` (its port or `defaultPort`) and back; both are
 * kept in `sockets` while open, and when either closes the other is cut, as a real relay would.
 */
export function relayTo(
  client: net.Socket,
  target: URL,
  defaultPort: number,
  sockets: Set<net.Socket>,
): void {
  const upstream = net.connect(Number(target.port || defaultPort), target.hostname);
  for (const s of [client, upstream]) {
    sockets.add(s);
    s.on('error', () => {});
    s.on('close', () => {
      sockets.delete(s);
      client.destroy();
      upstream.destroy();
    });
  }
  client.pipe(upstream).pipe(client);
}
