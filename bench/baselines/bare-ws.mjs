// A bare `ws` server on node:http standing for the platform under the socket cases:
//   - an upgrade on any path is accepted (no check) and answered with a small hello frame;
//   - PATCH /api/inventory/items/{id}: the JSON body is parsed, the caller's shared inventory
//     (from the token table) gets its next revision, the answer is sent, and an
//     inventoryUpdated frame goes to every socket of every member: a relay, no database;
//   - with `reusePort` in its config it shares its port with the other bare servers, and with
//     `relayPort` it also takes the PATCHes on a port of its own: the box case sends each write to
//     every bare server, each relays it to its own sockets (a bus that costs nothing).
import http from 'node:http';
import { WebSocketServer } from 'ws';
import { caller, exitWithParent, readBody, readConfig, ready, sendJson } from './common.mjs';

exitWithParent();
const config = readConfig();
const tokens = config.tokens;
/** inventoryId → the sockets of its members */
const members = new Map();
const revisions = new Map();

const onRequest = (req, res) => {
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
};
const server = http.createServer(onRequest);

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

if (config.relayPort) {
  http
    .createServer(onRequest)
    .listen(config.relayPort, '127.0.0.1', () =>
      ready(server, config.port, config.reusePort === true),
    );
} else ready(server, config.port, config.reusePort === true);
