// `npm run lint:api`: Redocly's recommended rules (redocly.yaml) over the OpenAPI document exactly
// as the server serves it; any error fails `npm run lint`.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openApiDocument } from './api-types.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cli = createRequire(import.meta.url).resolve('@redocly/cli/bin/cli.js');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'larder-lint-api-'));
try {
  const file = path.join(dir, 'openapi.json');
  fs.writeFileSync(file, JSON.stringify(await openApiDocument(), null, 2));
  const lint = spawnSync(
    process.execPath,
    [cli, 'lint', file, '--config', path.join(root, 'redocly.yaml'), '--format', 'stylish'],
    {
      stdio: 'inherit',
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    },
  );
  process.exitCode = lint.status ?? 1;
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
