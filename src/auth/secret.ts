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
  if (!fs.existsSync(file)) {
    // written whole under a temporary name, then linked into place: an instance starting at the
    // same moment either wins the link or reads the other's complete secret, never half a file
    const temp = `${file}.${process.pid}.${crypto.randomBytes(4).toString('hex')}.tmp`;
    fs.writeFileSync(temp, crypto.randomBytes(48).toString('base64url'), { mode: 0o600 });
    try {
      fs.linkSync(temp, file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    } finally {
      fs.rmSync(temp, { force: true });
    }
  }
  const secret = fs.readFileSync(file, 'utf8').trim();
  if (secret.length < 32) throw new Error(`${file} holds a secret shorter than 32 characters`);
  return new TextEncoder().encode(secret);
}
