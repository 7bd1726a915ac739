// Shared by the bare baseline servers. They are plain JavaScript on plain `node` (no loader, no
// framework) because they stand for the bare platform; bench/lib/baseline.ts starts them.
import fs from 'node:fs';

/** The JSON file named by the first argument: {port, ...what the mode needs}. */
export function readConfig() {
  const file = process.argv[2];
  if (!file) throw new Error('usage: node <baseline>.mjs <config.json>');
  return JSON.parse(fs.readFileSync(file, 'utf8'));
}

/** Dies with the harness: the IPC channel closes when it exits, even when it is killed. */
export function exitWithParent() {
  process.on('disconnect', () => process.exit(0));
}

/** Tells the harness the server listens (with SO_REUSEPORT, several on one port, when asked). */
export function ready(server, port, reusePort = false) {
  server.listen({ port, host: '127.0.0.1', reusePort }, () => process.send?.({ ready: true }));
}

/** The whole request body (bodies here are small JSON documents). */
export function readBody(req) {
  return new Promise((resolve, reject) => {
    const parts = [];
    req.on('data', (d) => parts.push(d));
    req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    req.on('error', reject);
  });
}

/** The caller the token stands for, from the token table the harness wrote ({} when unknown). */
export function caller(tokens, req) {
  const header = req.headers.authorization ?? '';
  return tokens[header.slice('Bearer '.length)] ?? {};
}

export function sendJson(res, status, body) {
  const bytes = Buffer.from(JSON.stringify(body));
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  res.end(bytes);
}
