import { describe, expect, it } from 'vitest';
import { DIALECTS, bearer, login } from '#test/helpers/app.js';
import { useTestApp } from '#test/helpers/fixtures.js';
import { openSocket } from '#test/helpers/ws.js';

const MINUTE = 60_000;

// A session's last use is written at most once a minute; the uses asked for together (a
// reconnect storm) go in one statement (src/auth/sessions.service.ts).
describe.each(DIALECTS)('a session’s last use (%s)', (dialect) => {
  const t = useTestApp(dialect);
  t.users('ada', 'bob');

  /** Every session of the user, as a session signed in now lists them. */
  const lastUses = async (name: string) => {
    const reader = await login(t.app, name, `${name}-password`);
    const res = await t.app.inject({ url: '/api/auth/sessions', headers: bearer(reader.token) });
    return (res.json() as any[]).map((s) => s.lastUsedAt as number);
  };

  it('is written by socket connects and requests a minute after the last', async () => {
    const ada = await login(t.app, 'ada', 'ada-password');
    const adaPhone = await login(t.app, 'ada', 'ada-password');
    const bob = await login(t.app, 'bob', 'bob-password');
    const signedIn = t.clock.now();
    t.clock.advance(30_000); // within the minute: a use is not written
    await openSocket(t.app, ada.token).then((s) => s.next('hello').then(() => s.close()));
    await t.app.larder.auth.sessionUsesWritten();
    // ada's sessions (the fixture's sign-in and these two) still show their sign-in; the
    // reader's is 30 s later
    expect((await lastUses('ada')).filter((at) => at < signedIn + 1000)).toHaveLength(3);
    t.clock.advance(2 * MINUTE);
    const now = t.clock.now();
    const sockets = await Promise.all([
      openSocket(t.app, ada.token),
      openSocket(t.app, adaPhone.token),
    ]);
    const [, me] = await Promise.all([
      Promise.all(sockets.map((s) => s.next('hello'))),
      t.app.inject({ url: '/api/auth/me', headers: bearer(bob.token) }),
    ]);
    expect(me.statusCode).toBe(200);
    await Promise.all(sockets.map((s) => s.close()));
    // a use is written in the background, a moment after the request or connect it came with
    await t.app.larder.auth.sessionUsesWritten();
    // the two the sockets used and this reader: now; the fixture's and the first reader: before
    const ada2 = await lastUses('ada');
    expect(ada2.filter((at) => at >= now)).toHaveLength(3);
    expect(ada2.filter((at) => at < now - MINUTE)).toHaveLength(2);
    // bob's used by the request and this reader: now; the fixture's: before
    expect((await lastUses('bob')).filter((at) => at >= now)).toHaveLength(2);
  });
});
