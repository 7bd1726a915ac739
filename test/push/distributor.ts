import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import * as ece from 'http_ece';
import { importJWK, jwtVerify } from 'jose';
import { expect } from 'vitest';
import type { Session } from '#test/helpers/app.js';
import { waitFor } from '#test/helpers/ws.js';

/** One push the stand-in received, decrypted and its VAPID authorization verified. */
export interface Push {
  endpoint: string;
  headers: http.IncomingHttpHeaders;
  bodyBytes: number;
  payload: any;
  /** ms since the stand-in's start, when the POST arrived */
  at: number;
}

interface Answer {
  status: number;
  headers?: Record<string, string>;
}

/** The phone's side of one subscription: the endpoint, and the keys only the phone holds. */
export interface Phone {
  endpoint: string;
  keys: { p256dh: string; auth: string };
  /** statuses the stand-in answers this endpoint's next POSTs with (then 201) */
  answers: Answer[];
  ecdh: crypto.ECDH;
}

/**
 * A UnifiedPush distributor on 127.0.0.1: answers the discovery GET, records every POST,
 * decrypts it with the phone's private key (http_ece, an implementation apart from the server's
 * web-push) and verifies its VAPID JWT (jose) against GET /api/push/vapid. A path under /other/
 * is not a UnifiedPush endpoint (its GET answers `{}`).
 */
export async function startDistributor(app: FastifyInstance) {
  const phones = new Map<string, Phone>();
  const pushes: Push[] = [];
  const failures: string[] = [];
  /** the paths of the discovery GETs received */
  const discoveries: string[] = [];
  const started = performance.now();
  const vapid = (await app.inject({ url: '/api/push/vapid' })).json().publicKey as string;
  const point = Buffer.from(vapid, 'base64url');
  const vapidKey = await importJWK(
    {
      kty: 'EC',
      crv: 'P-256',
      x: point.subarray(1, 33).toString('base64url'),
      y: point.subarray(33, 65).toString('base64url'),
    },
    'ES256',
  );

  async function accept(path: string, request: http.IncomingMessage, body: Buffer, at: number) {
    const phone = phones.get(path);
    if (!phone) throw new Error(`POST to unknown endpoint ${path}`);
    const match = /^vapid t=([^,]+), k=(.+)$/.exec(request.headers.authorization ?? '');
    if (!match) throw new Error(`no VAPID authorization: ${request.headers.authorization}`);
    expect(match[2]).toBe(vapid);
    const { payload: claims } = await jwtVerify(match[1]!, vapidKey);
    expect(claims.aud).toBe(new URL(phone.endpoint).origin);
    expect(claims.exp! * 1000).toBeLessThanOrEqual(Date.now() + 24 * 3600_000);
    expect(claims.sub).toMatch(/^(mailto:|https:)/);
    expect(request.headers['content-encoding']).toBe('aes128gcm');
    const plain = ece.decrypt(body, {
      version: 'aes128gcm',
      privateKey: phone.ecdh,
      authSecret: phone.keys.auth,
    });
    pushes.push({
      endpoint: phone.endpoint,
      headers: request.headers,
      bodyBytes: body.length,
      payload: JSON.parse(plain.toString('utf8')),
      at,
    });
  }

  const server = http.createServer((request, response) => {
    const path = request.url ?? '/';
    if (request.method === 'GET') {
      discoveries.push(path);
      response.setHeader('content-type', 'application/json');
      response.end(path.startsWith('/other/') ? '{}' : '{"unifiedpush":{"version":1}}');
      return;
    }
    const chunks: Buffer[] = [];
    request.on('data', (c: Buffer) => chunks.push(c));
    request.on('end', () => {
      const at = performance.now() - started;
      const answer = phones.get(path)?.answers.shift() ?? { status: 201 };
      accept(path, request, Buffer.concat(chunks), at)
        .catch((err: Error) => failures.push(err.message))
        .finally(() => {
          response.writeHead(answer.status, answer.headers ?? {});
          response.end();
        });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let count = 0;

  return {
    base,
    pushes,
    /** decryption or VAPID failures (each test expects none) */
    failures,
    discoveries,
    /** A new phone: its endpoint on the stand-in and fresh keys. */
    phone(path = `/up/${++count}`): Phone {
      const ecdh = crypto.createECDH('prime256v1');
      ecdh.generateKeys();
      const phone: Phone = {
        endpoint: `${base}${path}`,
        keys: {
          p256dh: ecdh.getPublicKey().toString('base64url'),
          auth: crypto.randomBytes(16).toString('base64url'),
        },
        answers: [],
        ecdh,
      };
      phones.set(path, phone);
      return phone;
    },
    /** The pushes to this phone so far. */
    to: (phone: Phone) => pushes.filter((p) => p.endpoint === phone.endpoint),
    /** Waits (with a deadline) until `n` pushes have reached the phone; returns them. */
    async received(phone: Phone, n: number, timeoutMs = 3000): Promise<Push[]> {
      await waitFor(
        () => pushes.filter((p) => p.endpoint === phone.endpoint).length >= n,
        timeoutMs,
      );
      expect(failures).toEqual([]);
      return pushes.filter((p) => p.endpoint === phone.endpoint);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export type Distributor = Awaited<ReturnType<typeof startDistributor>>;

/** POST /api/push/subscriptions as `who` for the phone; returns the reply. */
export async function subscribe(
  app: FastifyInstance,
  who: Session,
  phone: Pick<Phone, 'endpoint' | 'keys'>,
  events?: string[],
) {
  const res = await app.inject({
    method: 'POST',
    url: '/api/push/subscriptions',
    headers: who.headers,
    payload: { endpoint: phone.endpoint, keys: phone.keys, ...(events ? { events } : {}) },
  });
  return { status: res.statusCode, body: res.json() };
}

/** The push_deliveries rows, for the outbox's state. */
export function deliveries(app: FastifyInstance) {
  return app.larder.database.db.selectFrom('push_deliveries').selectAll().execute();
}

export const PUSH_ENV = { LARDER_OUTBOUND_ALLOW: '127.0.0.0/8', LARDER_ACCESS_TOKEN_TTL: '7d' };
