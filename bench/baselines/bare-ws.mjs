// A bare `ws` server on node:http standing for the platform under the socket cases:
//   - an upgrade on any path is accepted (no check) and answered with a small hello frame;
//   - PATCH /api/inventory/items/{id}: the JSON body is parsed, the caller's shared inventory
//     (from the token table) gets its next revision, the answer is sent, and an
//     inventoryUpdated frame goes to every socket of every member: a relay, no database;
//   - with `reusePort` in its config it shares its port with the other bare servers (the box case).
import http from 'node:http';
import { WebSocketServer } from 'ws';
import { caller, exitWithParent, readBody, readConfig, ready, sendJson } from './common.mjs';

exitWithParent();
const config = readConfig();
const tokens = config.tokens;
/** inventoryId → the sockets of its members */
const members = new Map();
const revisions = new Map();

const server = http.createServer((req, res) => {
  readBody(req).then(
    (text) => {
      JSON.parse(text);
      const { inventoryId } = caller(tokens, req);
      if (!inventoryId) return sendJson(res, 404, { message: 'no inventory', code: 'not_found' });
      const revision = (revisions.get(inventoryId) ?? 0) + 1;
      revisions.set(inventoryId, revision);
      sendJson(res, 200, { id: req.url.slice(req.url.lastIndexOf('/') + 1), revision });
      const frame = JSON.stringify({ type: 'inventoryUpdated', inventoryId, revision });
      for (const socket of members.get(inventoryId) ?? []) socket.send(frame);
    },
    (err) => sendJson(res, 500, { message: String(err), code: 'internal' }),
  );
});

const wss = new WebSocketServer({ server });
wss.on('connection', (socket, req) => {
  const { userId, inventoryId } = caller(tokens, req);
  if (inventoryId) {
    if (!members.has(inventoryId)) members.set(inventoryId, new Set());
    members.get(inventoryId).add(socket);
    socket.on('close', () => members.get(inventoryId).delete(socket));
  }
  socket.send(JSON.stringify({ type: 'hello', userId, inventoryId, revision: 0 }));
});

ready(server, config.port, config.reusePort === true);
