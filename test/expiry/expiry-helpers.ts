import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTestClock, type TestClock } from '#test/helpers/app.js';

/** The test day: far from the real one, so nothing depends on when the suite runs. */
const TODAY = '2030-03-10';
export const at = (hhmm: string) => Date.parse(`${TODAY}T${hhmm}:00Z`);
export const dayOffset = (days: number) =>
  new Date(Date.parse(`${TODAY}T00:00:00Z`) + days * 86400_000).toISOString().slice(0, 10);

/** A clock standing at `time` on the test day (UTC); it moves with real time from there. */
export function clockAt(time: number): TestClock & { set(time: number): void } {
  const clock = createTestClock();
  clock.advance(time - clock.now());
  return { ...clock, set: (t: number) => clock.advance(t - clock.now()) };
}

/**
 * Environment for expiry tests: UTC days, tokens that outlive the hours the clock moves, and the
 * webhook receivers on loopback allowed (refused by default: src/outbound/outbound.ts).
 */
export const EXPIRY_ENV: Record<string, string | undefined> = {
  LARDER_TZ: 'UTC',
  LARDER_ACCESS_TOKEN_TTL: '7d',
  LARDER_OUTBOUND_ALLOW: '127.0.0.0/8',
};

interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A local HTTP receiver on 127.0.0.1 answering each POST with the next status in `statuses`. */
export async function webhookReceiver(statuses: number[] = []) {
  const received: Received[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (c: Buffer) => chunks.push(c));
    request.on('end', () => {
      received.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      response.statusCode = statuses.shift() ?? 200;
      response.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export const sign = (secret: string, body: string) =>
  `sha256=${crypto.createHmac('sha256', secret).update(body).digest('hex')}`;
