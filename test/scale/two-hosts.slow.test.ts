import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ADMIN_PASSWORD, ADMIN_TOKEN } from '#test/helpers/app.js';
import { connect, http, postItem } from '#test/helpers/server-process.js';
import { nextRevision } from '#test/helpers/ws.js';
import { fixture, resourceMetadata, sha256 } from '#test/resources/helpers.js';
import {
  describeOnPostgresAndNats,
  filesBelow,
  pathOf,
  postForm,
  raw,
  startTwoHosts,
  within,
  type TwoHosts,
} from './two-hosts-helpers.js';

interface Signed {
  accessToken: string;
  refreshToken: string;
  userId: string;
  inventoryId: string;
}

// Black box: two server processes as on two hosts (their own data directories, one PostgreSQL
// schema, one S3 bucket, NATS as the bus), driven only through HTTP and /ws/sync on 127.0.0.1.
describeOnPostgresAndNats('two hosts sharing PostgreSQL, a bucket and NATS', () => {
  let hosts: TwoHosts;
  let A: string;
  let B: string;
  let admin: Signed;
  const pdf = fixture('water-guide.pdf');
  const apk = Buffer.concat([Buffer.from('PK\x03\x04'), Buffer.alloc(300_000, 9)]);

  const signIn = async (base: string, username: string, password: string) => {
    const res = await http(base, 'POST', '/api/auth/login', { body: { username, password } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body as Signed;
  };
  const createUser = async (base: string, username: string) => {
    const res = await http(base, 'POST', '/api/admin/users', {
      token: admin.accessToken,
      body: { username, password: `${username}-password` },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return signIn(base, username, `${username}-password`);
  };
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

  beforeAll(async () => {
    hosts = await startTwoHosts();
    ({ base: A } = hosts.a);
    ({ base: B } = hosts.b);
    admin = await signIn(A, 'admin', ADMIN_PASSWORD);
  }, 150_000);
  afterAll(() => hosts?.stop(), 60_000);

  it('a resource uploaded on A downloads from B, whole and by Range', async () => {
    const created = await postForm(A, '/api/admin/resources', admin.accessToken, [
      { name: 'metadata', data: JSON.stringify(resourceMetadata({ title: 'Across hosts' })) },
      { name: 'file', filename: 'guide.pdf', data: pdf },
    ]);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const url = pathOf(created.body.downloadUrl);
    const reader = await createUser(A, 'reader');

    const listed = await http(B, 'GET', '/api/resources', { token: reader.accessToken });
    expect(JSON.stringify(listed.body)).toContain(created.body.guid);
    const whole = await raw(B, 'GET', url, { headers: bearer(reader.accessToken) });
    expect(whole.status).toBe(200);
    expect(whole.bytes.equals(pdf)).toBe(true);
    expect(whole.headers.get('etag')).toBe(`"${sha256(pdf)}"`);
    const part = await raw(B, 'GET', url, {
      headers: { ...bearer(reader.accessToken), range: 'bytes=100-1123' },
    });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 100-1123/${pdf.length}`);
    expect(part.bytes.equals(pdf.subarray(100, 1124))).toBe(true);
    const again = await raw(B, 'GET', url, {
      headers: { ...bearer(reader.accessToken), 'if-none-match': whole.headers.get('etag')! },
    });
    expect(again.status).toBe(304);
  });

  it('a file analyzed on A is confirmed on B and downloads from both', async () => {
    const analyzed = await postForm(A, '/api/admin/resources/analyze', admin.accessToken, [
      { name: 'file', filename: 'water-guide.pdf', data: pdf },
    ]);
    expect(analyzed.status, hosts.a.output().slice(-2000)).toBe(200);
    const [staged] = analyzed.body as { filename: string }[];
    const confirmed = await http(B, 'POST', '/api/admin/resources/confirm', {
      token: admin.accessToken,
      body: { ...staged, title: 'Confirmed on B' },
    });
    expect(confirmed.status, JSON.stringify(confirmed.body)).toBe(201);
    for (const base of [A, B]) {
      const res = await raw(base, 'GET', pathOf(confirmed.body.downloadUrl), {
        headers: bearer(admin.accessToken),
      });
      expect(res.status).toBe(200);
      expect(res.bytes.equals(pdf)).toBe(true);
    }
    // confirmed once: the staged file is gone for both hosts
    const twice = await http(A, 'POST', '/api/admin/resources/confirm', {
      token: admin.accessToken,
      body: { ...staged, title: 'Confirmed twice' },
    });
    expect(twice.status).toBe(404);
  });

  it('the APK and the version published on A are served by B', async () => {
    const put = await raw(A, 'PUT', '/api/admin/apk', {
      headers: {
        ...bearer(ADMIN_TOKEN),
        'content-type': 'application/vnd.android.package-archive',
      },
      body: apk,
    });
    expect(put.status, put.bytes.toString()).toBe(200);
    const published = await http(A, 'POST', '/api/admin/version', {
      token: ADMIN_TOKEN,
      body: { versionCode: 42, versionName: '4.2.0' },
    });
    expect(published.status, JSON.stringify(published.body)).toBe(200);

    // B's cached version is refreshed by the event that crosses through NATS, a moment later
    await within(5_000, async () => (await http(B, 'GET', '/api/version')).body.versionCode === 42);
    const version = await http(B, 'GET', '/api/version');
    expect(version.body).toMatchObject({ versionCode: 42, versionName: '4.2.0' });
    expect(version.body.apkUrl.startsWith(`${B}/`)).toBe(true);
    const served = await raw(B, 'GET', pathOf(version.body.apkUrl));
    expect(served.status).toBe(200);
    expect(served.bytes.equals(apk)).toBe(true);
    const tail = await raw(B, 'GET', pathOf(version.body.apkUrl), {
      headers: { range: 'bytes=-10' },
    });
    expect(tail.status).toBe(206);
    expect(tail.bytes.equals(apk.subarray(-10))).toBe(true);
    const home = await raw(B, 'GET', '/');
    expect(home.bytes.toString('utf8')).toContain(pathOf(version.body.apkUrl));
  });

  it('a token from A works on B, and is refused by B once its session ends on A', async () => {
    const carol = await createUser(A, 'carol');
    const me = await http(B, 'GET', '/api/auth/me', { token: carol.accessToken });
    expect(me.status).toBe(200);
    expect(me.body.id).toBe(carol.userId);
    // the refresh token from A is good on B too (and rotates there)
    const refreshed = await http(B, 'POST', '/api/auth/refresh', {
      body: { refreshToken: carol.refreshToken },
    });
    expect(refreshed.status).toBe(200);
    const socket = await connect(B, refreshed.body.accessToken);
    await socket.next('hello');

    const out = await http(A, 'POST', '/api/auth/logout', {
      body: { refreshToken: refreshed.body.refreshToken },
    });
    expect(out.status).toBe(204);
    // B's cached session ends with the event that crosses through NATS: at once, or a moment
    // later; well before the cache's own 10 s bound (AUTH_CACHE_MS)
    const meOnB = (token: string) => http(B, 'GET', '/api/auth/me', { token });
    await within(2_000, async () => (await meOnB(refreshed.body.accessToken)).status === 401);
    const rotated = await http(B, 'POST', '/api/auth/refresh', {
      body: { refreshToken: refreshed.body.refreshToken },
    });
    expect(rotated.status).toBe(401);
    await within(5_000, async () => socket.closed());
  });

  it('a password set by an admin on B ends the sessions signed in on A', async () => {
    const dave = await createUser(A, 'dave');
    expect((await http(B, 'GET', '/api/auth/me', { token: dave.accessToken })).status).toBe(200);
    const socket = await connect(A, dave.accessToken);
    await socket.next('hello');
    const reset = await http(B, 'PUT', `/api/admin/users/${dave.userId}`, {
      token: admin.accessToken,
      body: { password: 'dave-new-password' },
    });
    expect(reset.status, JSON.stringify(reset.body)).toBe(200);
    expect((await http(B, 'GET', '/api/auth/me', { token: dave.accessToken })).status).toBe(401);
    const meOnA = async () => await http(A, 'GET', '/api/auth/me', { token: dave.accessToken });
    await within(2_000, async () => (await meOnA()).status === 401); // as on B, by the event
    await within(5_000, async () => socket.closed());
    await signIn(A, 'dave', 'dave-new-password');
  });

  it('messages and inventory events sent through one host reach a socket on the other', async () => {
    const alice = await createUser(A, 'alice');
    const bob = await createUser(B, 'bob');
    const shared = await http(A, 'PUT', `/api/admin/users/${bob.userId}/inventory`, {
      token: admin.accessToken,
      body: { inventoryId: alice.inventoryId },
    });
    expect(shared.status).toBe(200);
    const onB = await connect(B, bob.accessToken);
    const onA = await connect(A, alice.accessToken);
    try {
      expect(await onB.next('hello')).toMatchObject({ inventoryId: alice.inventoryId });
      await onA.next('hello');
      const toBob = await http(A, 'POST', '/api/messages', {
        token: alice.accessToken,
        body: { receiverId: bob.userId, body: 'sent through A' },
      });
      expect(toBob.status).toBe(201);
      expect((await onB.next('new_message')).message).toMatchObject({ id: toBob.body.id });
      const toAlice = await http(B, 'POST', '/api/messages', {
        token: bob.accessToken,
        body: { receiverId: alice.userId, body: 'sent through B' },
      });
      expect(toAlice.status).toBe(201);
      expect((await onA.next('new_message')).message).toMatchObject({ id: toAlice.body.id });

      const item = await postItem(A, alice.accessToken, {
        name: 'Rice',
        category: 'Grains',
        location: 'Cellar',
      });
      expect(await nextRevision(onB, item.revision)).toMatchObject({
        inventoryId: alice.inventoryId,
      });
      const patched = await http(B, 'PATCH', `/api/inventory/items/${item.id}`, {
        token: bob.accessToken,
        body: { quantity: 1 },
      });
      expect(patched.status, JSON.stringify(patched.body)).toBe(200);
      expect((await nextRevision(onA, patched.body.revision)).revision).toBe(patched.body.revision);
    } finally {
      onA.close();
      onB.close();
    }
  });

  it('a backup made on A is listed and downloadable on B; two at once are both kept', async () => {
    const made = await http(A, 'POST', '/api/admin/backups', { token: admin.accessToken });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const listed = await http(B, 'GET', '/api/admin/backups', { token: admin.accessToken });
    expect(listed.body).toContainEqual(expect.objectContaining({ name: made.body.name }));
    const url = `/api/admin/backups/${made.body.name}`;
    const dump = await raw(B, 'GET', url, { headers: bearer(admin.accessToken) });
    expect(dump.status).toBe(200);
    expect(dump.bytes.length).toBe(made.body.sizeBytes);
    expect(zlib.gunzipSync(dump.bytes).toString('utf8')).toMatch(/-- end of backup: \d+ rows\n$/);
    const tail = await raw(B, 'GET', url, {
      headers: { ...bearer(admin.accessToken), range: 'bytes=-8' },
    });
    expect(tail.status).toBe(206);
    expect(tail.bytes.equals(dump.bytes.subarray(-8))).toBe(true);

    const both = await Promise.all(
      [A, B].map((base) => http(base, 'POST', '/api/admin/backups', { token: admin.accessToken })),
    );
    expect(both.map((r) => r.status)).toEqual([201, 201]);
    expect(both[0]!.body.name).not.toBe(both[1]!.body.name);
    const all = await http(A, 'GET', '/api/admin/backups', { token: admin.accessToken });
    expect(all.body).toEqual(
      expect.arrayContaining(
        both.map((r) =>
          expect.objectContaining({ name: r.body.name, sizeBytes: r.body.sizeBytes }),
        ),
      ),
    );
  }, 60_000);

  it('neither data directory holds a resource, staged, backup or static file', () => {
    for (const env of [hosts.envA, hosts.envB]) {
      const dataDir = env.LARDER_DATA_DIR!;
      const kept = filesBelow(dataDir);
      for (const folder of ['resources', 'staging', 'backups', 'static', 'tmp']) {
        expect(kept.filter((f) => f.startsWith(`${folder}${path.sep}`))).toEqual([]);
      }
      // what a host keeps on disk: its copy of the published version, nothing else
      expect(kept).toEqual(['version.json']);
    }
  });
});
