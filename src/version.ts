import fs from 'node:fs';
import { ROOT_DIR } from './paths.js';

/** Larder's release (package.json `version`), as `larder --version` prints it. */
export const LARDER_VERSION: string = (
  JSON.parse(fs.readFileSync(new URL('package.json', ROOT_DIR), 'utf8')) as { version: string }
).version;
