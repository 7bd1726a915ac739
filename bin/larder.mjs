#!/usr/bin/env node
// The `larder` command: loads TypeScript through tsx, then runs src/cli.ts.
import { fileURLToPath } from 'node:url';
import { register } from 'tsx/esm/api';

register({ tsconfig: fileURLToPath(new URL('../tsconfig.json', import.meta.url)) });
await import('../src/cli.ts');
