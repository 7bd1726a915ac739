import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import { createInventoryFanout, encodeFrame, sendEncoded } from '#src/realtime/fanout.js';
import type { Frame } from '#src/realtime/frames.js';
import { waitFor } from '#test/helpers/ws.js';

interface Pair {
  /** the server's side of the socket, as the hub holds it */
  server: WebSocket;
  client: WebSocket;
  /** the frames the client got, in order */
  received: { type: string; [key: string]: unknown }[];
}

const cleanUp: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const step of cleanUp.splice(0)) await step();
});

/** One socket between a bare `ws` server and a client (compression on both when asked). */
async function pair(compression = false): Promise<Pair> {
  const server = http.createServer();
  const perMessageDeflate = compression ? { threshold: 0 } : false;
  const wss = new WebSocketServer({ server, perMessageDeflate });
  cleanUp.push(async () => {
    for (const socket of wss.clients) socket.terminate();
    await new Promise((resolve) => wss.close(resolve));
    await new Promise((resolve) => server.close(resolve));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const client = new WebSocket(`ws://127.0.0.1:${port}`, { perMessageDeflate: compression });
  const [[serverSide]] = await Promise.all([once(wss, 'connection'), once(client, 'open')]);
  const received: Pair['received'] = [];
  client.on('message', (data) => received.push(JSON.parse(data.toString())));
  return { server: serverSide as WebSocket, client, received };
}

describe('frames built once, written to each socket as they are', () => {
  it('arrive whole and in order with what ws sends itself, whatever their header (2, 4 or 10 bytes)', async () => {
    const { server, received } = await pair();
    const sizes = [0, 125, 126, 65_535, 65_536, 200_000];
    for (const size of sizes) {
      sendEncoded(server, encodeFrame({ type: 'built', pad: 'x'.repeat(size) } as Frame));
      server.send(JSON.stringify({ type: 'sent', size }));
    }
    await waitFor(() => received.length === sizes.length * 2, 5000);
    expect(received.map((f) => (f.type === 'built' ? (f.pad as string).length : f.size))).toEqual(
      sizes.flatMap((size) => [size, size]),
    );
    expect(received.map((f) => f.type)).toEqual(sizes.flatMap(() => ['built', 'sent']));
  });

  it('wait behind a frame ws is still compressing (the order of a socket holds)', async () => {
    const { server, received } = await pair(true);
    server.send(JSON.stringify({ type: 'compressed', pad: 'y'.repeat(100_000) }));
    sendEncoded(server, encodeFrame({ type: 'built' }));
    await waitFor(() => received.length === 2, 5000);
    expect(received.map((f) => f.type)).toEqual(['compressed', 'built']);
  });

  it('a congested socket is owed the latest revision, sent once it has drained', async () => {
    const { server, client, received } = await pair();
    client.pause();
    // fill the kernel's buffers, then the server's past the high-water mark
    const fill = encodeFrame({ type: 'fill', pad: 'z'.repeat(64 * 1024) } as Frame);
    for (let i = 0; i < 5000 && server.bufferedAmount <= 256 * 1024; i++) {
      sendEncoded(server, fill);
    }
    expect(server.bufferedAmount).toBeGreaterThan(256 * 1024);
    const filled = server.bufferedAmount;
    const target = { socket: server, owed: undefined };
    const fanout = createInventoryFanout({ targets: () => [target] });
    for (const revision of [1, 2, 3]) {
      fanout.push('inv', revision);
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(server.bufferedAmount).toBe(filled); // nothing written while congested
    client.resume();
    await waitFor(() => received.some((f) => f.type === 'inventoryUpdated'), 10_000);
    const updates = () => received.filter((f) => f.type === 'inventoryUpdated');
    expect(updates()).toEqual([{ type: 'inventoryUpdated', inventoryId: 'inv', revision: 3 }]);
    fanout.push('inv', 4); // drained: at once again
    await waitFor(() => updates().length === 2, 5000);
    expect(updates()[1]).toEqual({ type: 'inventoryUpdated', inventoryId: 'inv', revision: 4 });
    fanout.close();
  });
});

describe('inventory fan-out that takes the loop long', () => {
  it('after a flush of a millisecond or more, the events of the pause that follows share one frame', async () => {
    const sent: number[] = [];
    /** a socket whose first frame takes 100 ms to write, as a thousand sockets might */
    const socket = {
      readyState: WebSocket.OPEN,
      bufferedAmount: 0,
      send(payload: Buffer) {
        const { revision } = JSON.parse(payload.toString()) as { revision: number };
        sent.push(revision);
        const until = performance.now() + (revision === 1 ? 100 : 0);
        while (performance.now() < until); // busy, as writing is
      },
    } as unknown as WebSocket;
    const target = { socket, owed: undefined };
    const fanout = createInventoryFanout({ targets: () => [target] });
    const turn = () => new Promise((resolve) => setImmediate(resolve));
    fanout.push('inv', 1);
    await turn();
    expect(sent).toEqual([1]);
    fanout.push('inv', 2); // each in a turn of its own: without the pause, a frame each
    await turn();
    fanout.push('inv', 3);
    await waitFor(() => sent.length > 1, 5000);
    expect(sent).toEqual([1, 3]);
    fanout.close();
  });
});
