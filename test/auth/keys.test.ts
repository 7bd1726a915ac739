import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  DIALECTS,
  destroyTestEnvironment,
  loginAsAdmin,
  testEnvironment,
} from '#test/helpers/app.js';
import { inTestApp } from '#test/helpers/fixtures.js';
import { headerOf, keyRows, meStatus, resign } from './keys-tokens.js';

const FAR = 4102444800; // 2100-01-01, in seconds
const OLD_SECRET = 'the-secret-an-older-larder-generated-in-jwt-secret';

describe.each(DIALECTS)('JWT signing keys (%s)', (dialect) => {
  /** A fresh environment prepared by `prepare`, removed after `body`. */
  async function withEnvironment(
    extra: Record<string, string>,
    prepare: (dataDir: string) => void,
    body: (env: Record<string, string>) => Promise<void>,
  ): Promise<void> {
    const env = testEnvironment(dialect, extra);
    try {
      prepare(env.LARDER_DATA_DIR!);
      await body(env);
    } finally {
      await destroyTestEnvironment(env);
    }
  }

  it('a new installation makes a key in the database, writes no jwt-secret, and tokens carry its kid', async () => {
    await inTestApp(dialect, {}, async (t) => {
      const admin = await loginAsAdmin(t.app);
      const rows = await keyRows(t.app);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ generation: 1, legacy: 0, retired_at: null });
      expect(headerOf(admin.token)).toEqual({ alg: 'HS256', typ: 'JWT', kid: rows[0]!.kid });
      expect(await meStatus(t.app, admin.token)).toBe(200);
      expect(fs.existsSync(path.join(t.config.dataDir, 'jwt-secret'))).toBe(false);
    });
  });

  it('forged kids, kid-less tokens and a wrong key are 401 when there is no legacy key', async () => {
    await inTestApp(dialect, {}, async (t) => {
      const admin = await loginAsAdmin(t.app);
      const [key] = await keyRows(t.app);
      const typ = 'JWT';
      for (const token of [
        resign(admin.token, key!.secret, { alg: 'HS256', typ }), // no kid, not a legacy key
        resign(admin.token, key!.secret, { alg: 'HS256', typ, kid: 'made-up-kid' }),
        resign(admin.token, key!.secret, { alg: 'HS256', typ, kid: 42 }),
        resign(admin.token, 'x'.repeat(48), { alg: 'HS256', typ, kid: key!.kid }),
      ]) {
        expect(await meStatus(t.app, token)).toBe(401);
      }
      expect(await meStatus(t.app, admin.token)).toBe(200);
    });
  });

  it('rotation: old tokens keep working, new ones carry the new kid; once retired and pruned, 401', async () => {
    await inTestApp(dialect, {}, async (t) => {
      const before = await loginAsAdmin(t.app);
      const [old] = await keyRows(t.app);
      // a token of the old key that would outlive it: only the key's retirement stops it
      const lasting = resign(before.token, old!.secret, headerOf(before.token), { exp: FAR });
      const rotated = await t.app.larder.signingKeys.rotate();
      const ttlMs = t.config.accessTokenTtlSeconds * 1000;
      expect(rotated.oldKeysVerifyUntil).toBeGreaterThanOrEqual(t.clock.now() + ttlMs);

      expect(await meStatus(t.app, before.token)).toBe(200);
      expect(await meStatus(t.app, lasting)).toBe(200);
      const after = await loginAsAdmin(t.app);
      expect(headerOf(after.token).kid).toBe(rotated.kid);
      expect(headerOf(before.token).kid).toBe(old!.kid);
      expect(await t.app.larder.signingKeys.pruneRetired()).toBe(0); // not yet

      t.clock.advance(rotated.oldKeysVerifyUntil - t.clock.now() + 1000);
      expect(await meStatus(t.app, lasting)).toBe(401); // retired
      expect(await t.app.larder.signingKeys.pruneRetired()).toBe(1);
      expect((await keyRows(t.app)).map((k) => k.kid)).toEqual([rotated.kid]);
      expect(await meStatus(t.app, lasting)).toBe(401); // pruned: an unknown kid
      const fresh = await loginAsAdmin(t.app);
      expect(await meStatus(t.app, fresh.token)).toBe(200);
    });
  });

  it('upgrade: the old jwt-secret becomes the legacy key; tokens from before keep working until it retires', async () => {
    const writeOld = (dir: string) => fs.writeFileSync(path.join(dir, 'jwt-secret'), OLD_SECRET);
    await withEnvironment({}, writeOld, (env) =>
      inTestApp(dialect, { env }, async (t) => {
        const [key] = await keyRows(t.app);
        expect(key).toMatchObject({ secret: OLD_SECRET, legacy: 1, generation: 1 });
        const admin = await loginAsAdmin(t.app);
        // the token an older version signed: the same claims, no kid
        const older = resign(admin.token, OLD_SECRET, { alg: 'HS256', typ: 'JWT' });
        expect(await meStatus(t.app, older)).toBe(200);
        expect(await meStatus(t.app, admin.token)).toBe(200);
        // a kid-less token signed by anything else is not one
        const forged = resign(admin.token, 'y'.repeat(48), { alg: 'HS256', typ: 'JWT' });
        expect(await meStatus(t.app, forged)).toBe(401);

        const { oldKeysVerifyUntil } = await t.app.larder.signingKeys.rotate();
        expect(await meStatus(t.app, older)).toBe(200);
        const lasting = resign(admin.token, OLD_SECRET, { alg: 'HS256', typ: 'JWT' }, { exp: FAR });
        t.clock.advance(oldKeysVerifyUntil - t.clock.now() + 1000);
        expect(await meStatus(t.app, lasting)).toBe(401);
      }),
    );
  });

  it('upgrade with LARDER_JWT_SECRET: it becomes the legacy key; the file is not read', async () => {
    const secret = 'a-configured-secret-of-at-least-32-bytes!';
    const writeOld = (dir: string) => fs.writeFileSync(path.join(dir, 'jwt-secret'), OLD_SECRET);
    const extra = { LARDER_JWT_SECRET: secret };
    await withEnvironment(extra, writeOld, (env) =>
      inTestApp(dialect, { env }, async (t) => {
        expect((await keyRows(t.app))[0]).toMatchObject({ secret, legacy: 1 });
        const admin = await loginAsAdmin(t.app);
        expect(await meStatus(t.app, resign(admin.token, secret, { alg: 'HS256' }))).toBe(200);
        expect(await meStatus(t.app, resign(admin.token, OLD_SECRET, { alg: 'HS256' }))).toBe(401);
      }),
    );
  });

  it('the keys survive a restart: a token from before it still works, and the secret is read no more', async () => {
    await withEnvironment(
      {},
      () => {},
      async (env) => {
        let token = '';
        await inTestApp(dialect, { env }, async (t) => {
          token = (await loginAsAdmin(t.app)).token;
        });
        // a jwt-secret appearing later changes nothing: the database holds the keys
        fs.writeFileSync(path.join(env.LARDER_DATA_DIR!, 'jwt-secret'), OLD_SECRET);
        await inTestApp(dialect, { env }, async (t) => {
          expect(await meStatus(t.app, token)).toBe(200);
          expect(await keyRows(t.app)).toHaveLength(1);
        });
      },
    );
  });
});
