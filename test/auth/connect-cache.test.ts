import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { DIALECTS, describeOnPostgres, login } from '#test/helpers/app.js';
import { useTestApp } from '#test/helpers/fixtures.js';
import { recordPgStatements } from '#test/helpers/pg-statements.js';
import { openSocket } from '#test/helpers/ws.js';

// A socket's connect reads the user and session rows with the rest of its one query
// (src/realtime/connect.ts) and keeps them in the token check's cache (src/auth/sessions.service.ts):
// the app's requests right after it cost no read. What ends access must still end it at once.

// Every statement the app sends to PostgreSQL.
const sent = recordPgStatements();
const sessionReads = () => sent.filter((text) => /from "sessions"/i.test(text)).length;

const me = (app: FastifyInstance, token: string) =>
  app.inject({ url: '/api/auth/me', headers: { authorization: `Bearer ${token}` } });

describe.each(DIALECTS)(
  'what a socket connect read ends like any other cached access (%s)',
  (dialect) => {
    const t = useTestApp(dialect);
    t.users('ada', 'bob');

    it('a sign-out right after the connect refuses the token on HTTP and closes the socket', async () => {
      const session = await login(t.app, 'ada', 'ada-password');
      const socket = await openSocket(t.app, session.token);
      await socket.next('hello');
      expect((await me(t.app, session.token)).statusCode).toBe(200);
      await t.app.inject({
        method: 'POST',
        url: '/api/auth/logout',
        payload: { refreshToken: session.refreshToken },
      });
      expect((await me(t.app, session.token)).statusCode).toBe(401);
      expect(await socket.closed).toEqual({ code: 4001, reason: 'session ended' });
    });

    it('a password change right after the connect refuses the other sessions’ tokens', async () => {
      const phone = await login(t.app, 'bob', 'bob-password');
      const laptop = await login(t.app, 'bob', 'bob-password');
      const socket = await openSocket(t.app, phone.token);
      await socket.next('hello');
      const changed = await t.app.inject({
        method: 'POST',
        url: '/api/auth/password',
        headers: { authorization: `Bearer ${laptop.token}` },
        payload: { currentPassword: 'bob-password', newPassword: 'bob-password-2' },
      });
      expect(changed.statusCode).toBe(200);
      expect((await me(t.app, phone.token)).statusCode).toBe(401);
      expect(await socket.closed).toMatchObject({ code: 4001 });
    });
  },
);

describeOnPostgres('the requests after a socket connect', () => {
  const t = useTestApp('postgres');
  t.users('cyd', 'dina');

  it('read no session row: the connect left it cached', async () => {
    const session = await login(t.app, 'cyd', 'cyd-password');
    const socket = await openSocket(t.app, session.token);
    await socket.next('hello');
    sent.length = 0;
    expect((await me(t.app, session.token)).statusCode).toBe(200);
    expect(sessionReads()).toBe(0);
    await socket.close();
  });

  it('without a socket first, the token check reads the session', async () => {
    const session = await login(t.app, 'dina', 'dina-password');
    sent.length = 0;
    expect((await me(t.app, session.token)).statusCode).toBe(200);
    expect(sessionReads()).toBe(1);
  });
});

describeOnPostgres('the token check cache expires its entries spread over its 10 s', () => {
  const t = useTestApp('postgres');
  t.users('eve');

  it('entries cached together are read again at different moments, and all within 10 s', async () => {
    const sessions: { token: string }[] = [];
    for (let i = 0; i < 40; i++) sessions.push(await login(t.app, 'eve', 'eve-password'));
    const meAll = async () => {
      sent.length = 0;
      for (const session of sessions) {
        expect((await me(t.app, session.token)).statusCode).toBe(200);
      }
      return sessionReads();
    };
    expect(await meAll()).toBe(40); // each session read once, cached at the same moment
    expect(await meAll()).toBe(0);
    t.clock.advance(7_500);
    const halfway = await meAll();
    expect(halfway).toBeGreaterThan(0); // some expired between 5 and 7.5 s…
    expect(halfway).toBeLessThan(40); // …not all of them at once
    t.clock.advance(2_501); // 10 s after the first reads: the rest have expired too
    expect(await meAll()).toBe(40 - halfway);
  });
});
