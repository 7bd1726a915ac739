import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * The JWT signing secret: LARDER_JWT_SECRET when set, else a random one generated once and kept
 * in <dataDir>/jwt-secret (mode 0600), so tokens survive a restart and instances sharing the
 * data dir agree.
 */
export function loadJwtSecret(configured: string | null, dataDir: string): Uint8Array {
  if (configured !== null) return new TextEncoder().encode(configured);
  const file = path.join(dataDir, 'jwt-secret');
  fs.mkdirSync(dataDir, { recursive: true });
  try {
    fs.writeFileSync(file, crypto.randomBytes(48).toString('base64url'), {
      flag: 'wx',
      mode: 0o600,
    });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  const secret = fs.readFileSync(file, 'utf8').trim();
  if (secret.length < 32) throw new Error(`${file} holds a secret shorter than 32 characters`);
  return new TextEncoder().encode(secret);
}
