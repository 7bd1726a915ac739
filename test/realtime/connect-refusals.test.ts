import { describe, expect, it } from 'vitest';
import { DIALECTS, createUser, login, loginAsAdmin } from '#test/helpers/app.js';
import { useTestApp } from '#test/helpers/fixtures.js';
import { refusedUpgradeStatus } from '#test/helpers/ws.js';
import { call } from '#test/inventory/helpers.js';

// The upgrade's token check reads the user and session in the connect's one query
// (src/realtime/connect.ts): what ends access refuses the upgrade there as everywhere.
describe.each(DIALECTS)('a socket connect refuses ended access with 401 (%s)', (dialect) => {
  const t = useTestApp(dialect);
  t.users('una', 'vic');

  it('refuses an access token that has expired', async () => {
    const session = await login(t.app, 'una', 'una-password');
    t.clock.advance(t.config.accessTokenTtlSeconds * 1000 + 1000);
    expect(await refusedUpgradeStatus(t.app, `/ws/sync?token=${session.token}`)).toBe(401);
  });

  it('refuses the token of a deleted user', async () => {
    const admin = await loginAsAdmin(t.app); // a fresh token: another test moves the clock
    const gone = await createUser(t.app, admin, 'walt');
    const res = await call(t.app, admin, 'DELETE', `/api/admin/users/${gone.userId}`);
    expect(res.status).toBe(204);
    expect(await refusedUpgradeStatus(t.app, `/ws/sync?token=${gone.token}`)).toBe(401);
  });

  it('refuses a token of a signed-out session, whatever was cached before', async () => {
    const session = await login(t.app, 'vic', 'vic-password');
    const me = () =>
      t.app.inject({ url: '/api/auth/me', headers: { authorization: `Bearer ${session.token}` } });
    expect((await me()).statusCode).toBe(200); // user and session now cached
    await t.app.inject({
      method: 'POST',
      url: '/api/auth/logout',
      payload: { refreshToken: session.refreshToken },
    });
    expect(await refusedUpgradeStatus(t.app, `/ws/sync?token=${session.token}`)).toBe(401);
    expect((await me()).statusCode).toBe(401);
  });
});
