// Starts a TypeScript module in a worker thread: tsx compiles it there as it does for the CLI
// and server processes the slow tests start (the test runner's own compiler is not in a worker).
import { register } from 'tsx/esm/api';
import { workerData } from 'node:worker_threads';

register();
await import(workerData.module);
