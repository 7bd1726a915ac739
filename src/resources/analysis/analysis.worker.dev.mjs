// Runs the analysis worker from its TypeScript source (tests, tsx): registers tsx inside this
// worker thread, then loads the worker. The compiled server (dist/) starts analysis.worker.js
// directly and never uses this file.
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

// pdf.js through tsx's loader costs ~140 MB more memory (docs/decisions.md): load both halves
// natively first; the worker's own imports then find them loaded
globalThis.pdfjsWorker = await import('pdfjs-dist/legacy/build/pdf.worker.mjs');
await import('pdfjs-dist/legacy/build/pdf.mjs');
register();
await import(workerData.entry);
