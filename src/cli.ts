// Process entry of the `larder` command (bin/larder.mjs, `npm run cli`): the Node version is
// checked before any other module loads (a native module would crash the process on another
// Node), then the command line runs (src/cli/run.ts).
import { refuseUnsupportedNode } from './node-version.js';

refuseUnsupportedNode();
await import('./cli/run.js');
