// Process entry of the server (`node dist/main.js`, `npm start`): the Node version is checked
// before any other module loads, then the server starts (src/server.ts, which the build bundles
// into dist/server.js; this file stays a small module of its own so the check runs first).
import { refuseUnsupportedNode } from './node-version.js';

refuseUnsupportedNode();
await import('./server.js');
