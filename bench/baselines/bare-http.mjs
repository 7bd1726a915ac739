// Bare node:http servers, one per mode, standing for the platform under each HTTP case:
//   bytes     every request answered with the same bytes, held in memory
//   gzip      the same bytes gzipped anew for every request
//   patch     JSON body parsed, one-row UPDATE of the item, the row sent back
//   message   JSON body parsed, one INSERT of the message, the row sent back (201)
//   snapshot  SELECT of the caller's items, JSON.stringify, gzipped when the client accepts it
// On SQLite (better-sqlite3) the database is opened with the pragmas Larder sets; on PostgreSQL
// through a pg pool of Larder's size. The caller comes from a token table, not a JWT.
import fs from 'node:fs';
import http from 'node:http';
import crypto from 'node:crypto';
import zlib from 'node:zlib';
import { caller, exitWithParent, readBody, readConfig, ready, sendJson } from './common.mjs';

exitWithParent();
const config = readConfig();

const SQL = {
  patch:
    'UPDATE items SET quantity = ?, last_updated = ?, revision = revision + 1 ' +
    'WHERE inventory_id = ? AND id = ? RETURNING *',
  message:
    'INSERT INTO messages (id, sender_id, receiver_id, body, sent_at) VALUES (?, ?, ?, ?, ?) ' +
    'RETURNING id, sender_id, receiver_id, body, sent_at, delivered_at',
  snapshot: 'SELECT * FROM items WHERE inventory_id = ? ORDER BY id',
};

async function openDatabase() {
  if (config.dialect === 'sqlite') {
    const { default: SQLite } = await import('better-sqlite3');
    const db = new SQLite(config.sqlitePath);
    db.pragma('journal_mode = WAL');
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    // Larder's setting; the commit-sync case also runs NORMAL to show what FULL costs
    db.pragma(`synchronous = ${config.synchronous === 'NORMAL' ? 'NORMAL' : 'FULL'}`);
    const statements = {};
    for (const [name, text] of Object.entries(SQL)) statements[name] = db.prepare(text);
    return {
      one: async (name, params) => statements[name].get(...params),
      all: async (name, params) => statements[name].all(...params),
    };
  }
  const { default: pg } = await import('pg');
  pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));
  const pool = new pg.Pool({
    connectionString: config.pgUrl,
    options: `-c search_path=${config.pgSchema}`,
    max: 10,
  });
  const numbered = (text) => {
    let n = 0;
    return text.replace(/\?/g, () => `$${++n}`);
  };
  const query = (name, params) => pool.query({ name, text: numbered(SQL[name]), values: params });
  return {
    one: async (name, params) => (await query(name, params)).rows[0],
    all: async (name, params) => (await query(name, params)).rows,
  };
}

function gzipped(res, status, bytes) {
  zlib.gzip(bytes, (err, zipped) => {
    if (err) return sendJson(res, 500, { message: String(err) });
    res.writeHead(status, {
      'content-type': 'application/json; charset=utf-8',
      'content-encoding': 'gzip',
    });
    res.end(zipped);
  });
}

const db = ['patch', 'message', 'snapshot'].includes(config.mode) ? await openDatabase() : null;
const tokens = config.tokens ?? {};
const bytes = config.bodyFile ? fs.readFileSync(config.bodyFile) : null;
let handle;

switch (config.mode) {
  case 'bytes':
    handle = async (_req, res) => {
      res.writeHead(200, { 'content-type': config.contentType });
      res.end(bytes);
    };
    break;
  case 'gzip':
    handle = async (_req, res) => gzipped(res, 200, bytes);
    break;
  case 'patch':
    handle = async (req, res) => {
      const patch = JSON.parse(await readBody(req));
      const id = decodeURIComponent(req.url.slice(req.url.lastIndexOf('/') + 1));
      const who = caller(tokens, req);
      const row = await db.one('patch', [patch.quantity, Date.now(), who.inventoryId, id]);
      if (!row) return sendJson(res, 404, { message: `no item ${id}`, code: 'not_found' });
      sendJson(res, 200, row);
    };
    break;
  case 'message':
    handle = async (req, res) => {
      const body = JSON.parse(await readBody(req));
      const who = caller(tokens, req);
      const params = [crypto.randomUUID(), who.userId, body.receiverId, body.body, Date.now()];
      sendJson(res, 201, await db.one('message', params));
    };
    break;
  case 'snapshot':
    handle = async (req, res) => {
      const who = caller(tokens, req);
      const items = await db.all('snapshot', [who.inventoryId]);
      const json = Buffer.from(JSON.stringify({ inventoryId: who.inventoryId, items }));
      if (/\bgzip\b/.test(req.headers['accept-encoding'] ?? '')) return gzipped(res, 200, json);
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
      res.end(json);
    };
    break;
  default:
    throw new Error(`unknown mode ${config.mode}`);
}

const server = http.createServer((req, res) => {
  handle(req, res).catch((err) => sendJson(res, 500, { message: String(err), code: 'internal' }));
});
ready(server, config.port);
