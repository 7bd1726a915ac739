import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { describeOnPostgres, loginAsAdmin } from '#test/helpers/app.js';
import { useTestApp } from '#test/helpers/fixtures.js';
import { waitFor } from '#test/helpers/ws.js';
import { headerOf, meStatus, useOtherHost } from './keys-tokens.js';

// Two hosts: one PostgreSQL schema, a data dir each. The keys are in the database alone.
describeOnPostgres('signing keys across two instances with separate data dirs', () => {
  const a = useTestApp('postgres');
  const b = useOtherHost(a);

  it('a token from one works on the other, and neither data dir holds a secret', async () => {
    expect(await meStatus(b.app, a.admin.token)).toBe(200);
    expect(await meStatus(a.app, b.admin.token)).toBe(200);
    expect(headerOf(a.admin.token).kid).toBe(headerOf(b.admin.token).kid);
    for (const dir of [a.config.dataDir, b.config.dataDir]) {
      expect(fs.existsSync(path.join(dir, 'jwt-secret'))).toBe(false);
    }
  });

  it('a rotation on one is honoured by the other at once, and the other signs with the new key', async () => {
    const { kid } = await a.app.larder.signingKeys.rotate();
    const onA = await loginAsAdmin(a.app);
    expect(headerOf(onA.token).kid).toBe(kid);
    expect(await meStatus(b.app, onA.token)).toBe(200); // however soon the event arrives
    expect(await meStatus(b.app, b.admin.token)).toBe(200); // the old key still verifies
    await waitFor(async () => headerOf((await loginAsAdmin(b.app)).token).kid === kid);
  });
});
