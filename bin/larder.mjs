#!/usr/bin/env node
// The `larder` command: loads TypeScript through tsx, then runs src/cli.ts (which checks the
// Node version before anything else loads).
import { fileURLToPath } from 'node:url';
import { register } from 'tsx/esm/api';

register({ tsconfig: fileURLToPath(new URL('../tsconfig.json', import.meta.url)) });
await import('../src/cli.ts');
