import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DIALECTS, type Session } from '#test/helpers/app.js';
import { useTestApp } from '#test/helpers/fixtures.js';

describe.each(DIALECTS)('messages over HTTP (%s)', (dialect) => {
  const t = useTestApp(dialect);
  const [anna, ben, cleo] = t.users('anna', 'ben', 'cleo');

  const send = (from: Session, payload: unknown) =>
    t.app.inject({
      method: 'POST',
      url: '/api/messages',
      headers: from.headers,
      payload: payload as object,
    });
  const read = (as: Session, otherId: string, query = '') =>
    t.app.inject({ method: 'GET', url: `/api/messages/${otherId}${query}`, headers: as.headers });

  it('POST /api/messages stores the message and answers 201 with a MessageDto', async () => {
    const before = t.clock.now();
    const res = await send(anna, { receiverId: ben.userId, body: 'Milk is low' });
    expect(res.statusCode).toBe(201);
    const message = res.json();
    expect(message).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      senderId: anna.userId,
      senderUsername: 'anna',
      receiverId: ben.userId,
      body: 'Milk is low',
      sentAt: expect.any(Number),
      deliveredAt: null,
    });
    expect(message.sentAt).toBeGreaterThanOrEqual(before);
    const convo = await read(anna, ben.userId);
    expect(convo.json().map((m: any) => m.id)).toContain(message.id);
  });

  it('a retry with the same id and content returns the stored message with 200, stored once', async () => {
    const id = crypto.randomUUID();
    const first = await send(cleo, { id, receiverId: ben.userId, body: 'Bring eggs' });
    expect(first.statusCode).toBe(201);
    const retry = await send(cleo, { id, receiverId: ben.userId, body: 'Bring eggs' });
    expect(retry.statusCode).toBe(200);
    expect(retry.json()).toEqual(first.json());
    const convo = (await read(cleo, ben.userId)).json();
    expect(convo.filter((m: any) => m.id === id)).toHaveLength(1);
  });

  it('concurrent retries with one id store one message: one 201, the rest 200', async () => {
    const payload = { id: crypto.randomUUID(), receiverId: cleo.userId, body: 'sent five times' };
    const answers = await Promise.all([1, 2, 3, 4, 5].map(() => send(ben, payload)));
    expect(answers.map((r) => r.statusCode).sort()).toEqual([200, 200, 200, 200, 201]);
    expect(new Set(answers.map((r) => r.body)).size).toBe(1);
    // the same race one layer down, where all five pass the existence check before any insert
    const sender = {
      id: ben.userId,
      username: 'ben',
      isAdmin: false,
      inventoryId: ben.inventoryId,
    };
    const again = { ...payload, id: crypto.randomUUID() };
    const results = await Promise.all(
      [1, 2, 3, 4, 5].map(() => t.app.larder.messages.send(sender, again)),
    );
    expect(results.filter((r) => r.created)).toHaveLength(1);
    expect(new Set(results.map((r) => r.message.sentAt)).size).toBe(1);
    const convo = (await read(ben, cleo.userId)).json();
    expect(convo.filter((m: any) => m.id === payload.id || m.id === again.id)).toHaveLength(2);
  });

  it('the same id with another body, receiver or sender is 409 and changes nothing', async () => {
    const id = crypto.randomUUID();
    expect((await send(cleo, { id, receiverId: anna.userId, body: 'one' })).statusCode).toBe(201);
    for (const [from, payload] of [
      [cleo, { id, receiverId: anna.userId, body: 'two' }],
      [cleo, { id, receiverId: ben.userId, body: 'one' }],
      [ben, { id, receiverId: anna.userId, body: 'one' }],
    ] as const) {
      const res = await send(from, payload);
      expect(res.statusCode).toBe(409);
      expect(res.json()).toEqual({
        message: `A different message with id ${id} exists`,
        code: 'conflict',
      });
    }
    const convo = (await read(anna, cleo.userId)).json();
    expect(convo.filter((m: any) => m.id === id).map((m: any) => m.body)).toEqual(['one']);
  });

  it('rejects bad input with {message, code} and stores nothing', async () => {
    const cases: [string, unknown, number, string][] = [
      ['unknown receiver', { receiverId: crypto.randomUUID(), body: 'hi' }, 404, 'not_found'],
      ['receiver id that is no id', { receiverId: 'nobody', body: 'hi' }, 404, 'not_found'],
      ['to yourself', { receiverId: anna.userId, body: 'hi' }, 400, 'validation_failed'],
      ['empty body', { receiverId: ben.userId, body: '' }, 400, 'validation_failed'],
      ['whitespace body', { receiverId: ben.userId, body: ' \n\t ' }, 400, 'validation_failed'],
      [
        'body over 4000',
        { receiverId: ben.userId, body: 'x'.repeat(4001) },
        400,
        'validation_failed',
      ],
      ['body a number', { receiverId: ben.userId, body: 42 }, 400, 'validation_failed'],
      [
        'body an object',
        { receiverId: ben.userId, body: { text: 'hi' } },
        400,
        'validation_failed',
      ],
      ['body null', { receiverId: ben.userId, body: null }, 400, 'validation_failed'],
      ['body missing', { receiverId: ben.userId }, 400, 'validation_failed'],
      ['receiver missing', { body: 'hi' }, 400, 'validation_failed'],
      ['receiver a number', { receiverId: 7, body: 'hi' }, 400, 'validation_failed'],
      ['NUL in body', { receiverId: ben.userId, body: 'a\u0000b' }, 400, 'validation_failed'],
      ['lone surrogate', { receiverId: ben.userId, body: 'a\ud800b' }, 400, 'validation_failed'],
      ['id not a UUID', { id: 'x', receiverId: ben.userId, body: 'hi' }, 400, 'validation_failed'],
      ['unknown field', { receiverId: ben.userId, body: 'hi', to: 'x' }, 400, 'validation_failed'],
      ['an array', [{ receiverId: ben.userId, body: 'hi' }], 400, 'validation_failed'],
    ];
    const countBefore = await t.app.larder.messages.countPending();
    for (const [name, payload, status, code] of cases) {
      const res = await send(anna, payload);
      expect({ name, status: res.statusCode, code: res.json().code }).toEqual({
        name,
        status,
        code,
      });
      expect(res.json().message, name).toEqual(expect.any(String));
    }
    expect(await t.app.larder.messages.countPending()).toBe(countBefore);
  });

  it('accepts exactly 4000 characters, counting an emoji as one', async () => {
    const body = '🥫'.repeat(4000);
    const res = await send(anna, { receiverId: cleo.userId, body });
    expect(res.statusCode).toBe(201);
    expect(res.json().body).toBe(body);
  });

  it('documents the routes in the OpenAPI document, with the bearer scheme', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/api/openapi.json' })).json();
    for (const [path, method] of [
      ['/api/messages', 'post'],
      ['/api/messages/{userId}', 'get'],
      ['/api/users', 'get'],
    ] as const) {
      expect(doc.paths[path][method].security, path).toEqual([{ bearer: [] }]);
    }
    expect(doc.components.schemas.Message.required).toEqual(
      expect.arrayContaining(['id', 'senderId', 'senderUsername', 'receiverId', 'body', 'sentAt']),
    );
  });

  it('requires a valid token', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/messages',
      payload: { receiverId: ben.userId, body: 'hi' },
    });
    expect(res.statusCode).toBe(401);
    expect(res.json().code).toBe('unauthorized');
    const get = await t.app.inject({
      method: 'GET',
      url: `/api/messages/${ben.userId}`,
      headers: { authorization: 'Bearer nope' },
    });
    expect(get.statusCode).toBe(401);
  });
});
