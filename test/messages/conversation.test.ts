import { describe, expect, it } from 'vitest';
import { DIALECTS, createUser, loginAsAdmin, type Session } from '#test/helpers/app.js';
import { inTestApp, useTestApp } from '#test/helpers/fixtures.js';
import { sendMessage } from './helpers.js';

describe.each(DIALECTS)('GET /api/messages/{userId} and GET /api/users (%s)', (dialect) => {
  const t = useTestApp(dialect);
  const { admin } = t;
  const [anna, ben, cleo] = t.users('anna', 'Ben', 'cleo');

  const send = (from: Session, to: Session, body: string) => sendMessage(t.app, from, to, body);
  const read = (as: Session, otherId: string, query = '') =>
    t.app.inject({ method: 'GET', url: `/api/messages/${otherId}${query}`, headers: as.headers });

  it('returns both directions, newest last, paged with before and limit', async () => {
    const sent = [];
    for (let i = 0; i < 7; i++) {
      sent.push(await send(i % 2 ? anna : ben, i % 2 ? ben : anna, `m${i}`));
      t.clock.advance(1000);
    }
    await send(anna, cleo, 'not in this conversation');
    const page1 = (await read(anna, ben.userId, '?limit=3')).json();
    expect(page1.map((m: any) => m.body)).toEqual(['m4', 'm5', 'm6']);
    const page2 = (await read(anna, ben.userId, `?limit=3&before=${page1[0].sentAt}`)).json();
    expect(page2.map((m: any) => m.body)).toEqual(['m1', 'm2', 'm3']);
    const page3 = (await read(anna, ben.userId, `?limit=3&before=${page2[0].sentAt}`)).json();
    expect(page3.map((m: any) => m.body)).toEqual(['m0']);
    const all = (await read(ben, anna.userId)).json();
    expect(all.map((m: any) => m.id)).toEqual(sent.map((m) => m.id));
  });

  it('reading marks what the caller received as delivered, once; the sender sees it', async () => {
    const m = await send(cleo, ben, 'are you there?');
    // the sender reading does not deliver it
    const bySender = (await read(cleo, ben.userId)).json();
    expect(bySender.find((x: any) => x.id === m.id).deliveredAt).toBeNull();

    t.clock.advance(5000);
    const byReceiver = (await read(ben, cleo.userId)).json();
    const delivered = byReceiver.find((x: any) => x.id === m.id).deliveredAt;
    expect(delivered).toEqual(expect.any(Number));
    expect(delivered).toBeGreaterThanOrEqual(m.sentAt + 5000);

    t.clock.advance(5000);
    await read(ben, cleo.userId);
    const seenBySender = (await read(cleo, ben.userId)).json();
    expect(seenBySender.find((x: any) => x.id === m.id).deliveredAt).toBe(delivered);
  });

  it('rejects an unknown user, yourself, bad paging and no token', async () => {
    const cases: [Session | null, string, number, string][] = [
      [anna, '/api/messages/8b0c9a52-4a55-4f0e-9d7f-000000000000', 404, 'not_found'],
      [anna, '/api/messages/not-a-user', 404, 'not_found'],
      [anna, `/api/messages/${anna.userId}`, 400, 'validation_failed'],
      [anna, `/api/messages/${ben.userId}?limit=0`, 400, 'validation_failed'],
      [anna, `/api/messages/${ben.userId}?limit=201`, 400, 'validation_failed'],
      [anna, `/api/messages/${ben.userId}?limit=ten`, 400, 'validation_failed'],
      [anna, `/api/messages/${ben.userId}?before=-5`, 400, 'validation_failed'],
      [anna, `/api/messages/${ben.userId}?before=yesterday`, 400, 'validation_failed'],
      [null, `/api/messages/${ben.userId}`, 401, 'unauthorized'],
    ];
    for (const [as, url, status, code] of cases) {
      const res = await t.app.inject({ method: 'GET', url, headers: as?.headers ?? {} });
      expect({ url, status: res.statusCode, code: res.json().code }).toEqual({ url, status, code });
    }
  });

  it('GET /api/users lists everyone but the caller with isOnline', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/users', headers: anna.headers });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([
      { id: admin.userId, username: 'admin', isOnline: false },
      { id: ben.userId, username: 'Ben', isOnline: false },
      { id: cleo.userId, username: 'cleo', isOnline: false },
    ]);
    const anonymous = await t.app.inject({ method: 'GET', url: '/api/users' });
    expect(anonymous.statusCode).toBe(401);
  });

  it('deleting a user deletes the messages they sent or received', async () => {
    const dora = await t.createUser('dora');
    await send(dora, anna, 'from dora');
    await send(anna, dora, 'to dora');
    const pending = await t.app.larder.messages.countPending();
    const del = await t.app.inject({
      method: 'DELETE',
      url: `/api/admin/users/${dora.userId}`,
      headers: admin.headers,
    });
    expect(del.statusCode).toBe(204);
    expect(await t.app.larder.messages.countPending()).toBe(pending - 2);
    expect((await read(anna, dora.userId)).statusCode).toBe(404);
  });
});

describe.each(DIALECTS)('messages sent in the same millisecond (%s)', (dialect) => {
  it('are never split across pages, so paging by sentAt skips none', async () => {
    const frozen = Date.now();
    const clock = { now: () => frozen, advance: () => {} };
    await inTestApp(dialect, { clock }, async (t) => {
      const admin = await loginAsAdmin(t.app);
      const anna = await createUser(t.app, admin, 'anna');
      const ben = await createUser(t.app, admin, 'ben');
      for (let i = 0; i < 5; i++) {
        await t.app.inject({
          method: 'POST',
          url: '/api/messages',
          headers: anna.headers,
          payload: { receiverId: ben.userId, body: `tie ${i}` },
        });
      }
      const page = await t.app.inject({
        method: 'GET',
        url: `/api/messages/${anna.userId}?limit=2`,
        headers: ben.headers,
      });
      expect(page.json().map((m: any) => m.body)).toEqual([0, 1, 2, 3, 4].map((i) => `tie ${i}`));
      const older = await t.app.inject({
        method: 'GET',
        url: `/api/messages/${anna.userId}?limit=2&before=${frozen}`,
        headers: ben.headers,
      });
      expect(older.json()).toEqual([]);
    });
  });
});
