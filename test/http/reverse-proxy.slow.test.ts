import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_PASSWORD, destroyTestEnvironment, testEnvironment } from '#test/helpers/app.js';
import { freePort } from '#test/helpers/tcp.js';
import { http, startServer, type ServerProcess } from '#test/helpers/server-process.js';
import { multipart, resourceMetadata } from '#test/resources/helpers.js';

const NGINX = ['/usr/sbin/nginx', '/usr/bin/nginx'].find((p) => fs.existsSync(p));
const OPERATIONS = path.resolve(import.meta.dirname, '../../docs/operations.md');
const MiB = 1024 * 1024;

/** The nginx example of docs/operations.md, as an admin would paste it, on loopback without TLS. */
function documentedServerBlock(proxyPort: number, larderPort: number): string {
  const doc = fs.readFileSync(OPERATIONS, 'utf8');
  const block = /```nginx\n([\s\S]*?)```/.exec(doc)?.[1];
  if (!block) throw new Error('docs/operations.md has no nginx example');
  return block
    .replace(/listen 443 ssl http2;/, `listen 127.0.0.1:${proxyPort};`)
    .replace(/^\s*ssl_certificate.*$/gm, '')
    .replace('proxy_pass http://127.0.0.1:8080;', `proxy_pass http://127.0.0.1:${larderPort};`);
}

/** nginx in the foreground, one process, everything it writes inside `dir`. */
async function startNginx(dir: string, serverBlock: string, port: number): Promise<ChildProcess> {
  for (const sub of ['logs', 'body', 'proxy'])
    fs.mkdirSync(path.join(dir, sub), { recursive: true });
  const conf = path.join(dir, 'nginx.conf');
  fs.writeFileSync(
    conf,
    `daemon off;
master_process off;
pid ${dir}/nginx.pid;
error_log ${dir}/logs/error.log;
events { worker_connections 64; }
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  ${serverBlock}
}
`,
  );
  const child = spawn(NGINX!, ['-p', dir, '-c', conf], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`nginx exited: ${stderr}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => {
        socket.end();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
    if (open) return child;
    if (Date.now() > deadline) throw new Error(`nginx did not listen: ${stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * docs/operations.md's nginx block in front of a real server: a 25 MiB resource (the largest an
 * admin may add) goes through, and the limit is a matter of units — the same block with
 * 26,000,000 bytes (what Caddy's `26MB` means) refuses it.
 */
describe.skipIf(!NGINX)('the documented nginx reverse proxy (needs nginx)', () => {
  const env = testEnvironment('sqlite');
  const dirs: string[] = [];
  let server: ServerProcess;
  let token: string;
  const pdf = Buffer.alloc(25 * MiB, 0x20);
  pdf.write('%PDF-1.4\n');

  beforeAll(async () => {
    server = await startServer(env);
    const login = await http(server.base, 'POST', '/api/auth/login', {
      body: { username: 'admin', password: ADMIN_PASSWORD },
    });
    token = login.body.accessToken;
  });
  afterAll(async () => {
    await server?.stop();
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
    await destroyTestEnvironment(env);
  });

  async function uploadThrough(serverBlock: (proxyPort: number, larderPort: number) => string) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'larder-nginx-'));
    dirs.push(dir);
    const port = await freePort();
    const larderPort = Number(new URL(server.base).port);
    const nginx = await startNginx(dir, serverBlock(port, larderPort), port);
    try {
      const body = multipart([
        { name: 'metadata', data: JSON.stringify(resourceMetadata({ title: 'Big guide' })) },
        { name: 'file', filename: 'big.pdf', data: pdf },
      ]);
      const res = await fetch(`http://127.0.0.1:${port}/api/admin/resources`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, ...body.headers },
        body: body.payload,
      });
      return { status: res.status, body: await res.text() };
    } finally {
      const exited = new Promise((resolve) => nginx.once('exit', resolve));
      nginx.kill('SIGQUIT');
      await exited;
    }
  }

  it('passes a 25 MiB upload to the server', async () => {
    const res = await uploadThrough(documentedServerBlock);
    expect(res.status, res.body).toBe(201);
    expect(JSON.parse(res.body)).toMatchObject({ title: 'Big guide', fileSize: 25 * MiB });
  });

  it('with a limit of 26,000,000 bytes (Caddy 26MB) the same upload is refused', async () => {
    const res = await uploadThrough((proxyPort, larderPort) =>
      documentedServerBlock(proxyPort, larderPort).replace(
        'client_max_body_size 26m;',
        'client_max_body_size 26000000;',
      ),
    );
    expect(res.status).toBe(413);
  });
});
