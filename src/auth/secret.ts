import fs from 'node:fs';
import path from 'node:path';

/** The file where versions before signing keys lived in the database kept their secret. */
const LEGACY_SECRET_FILE = 'jwt-secret';

/**
 * The secret tokens were signed with before the keys moved into the database: LARDER_JWT_SECRET
 * when set, else `<dataDir>/jwt-secret` when an older version created it, else null (a new
 * installation). Read only while the database holds no key (src/auth/keys.service.ts); nothing is
 * written.
 */
export function readLegacyJwtSecret(configured: string | null, dataDir: string): string | null {
  if (configured !== null) return configured;
  const file = path.join(dataDir, LEGACY_SECRET_FILE);
  let secret: string;
  try {
    secret = fs.readFileSync(file, 'utf8').trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  if (secret.length < 32) throw new Error(`${file} holds a secret shorter than 32 characters`);
  return secret;
}
