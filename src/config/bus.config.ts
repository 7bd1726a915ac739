import path from 'node:path';
import { ConfigError, readVariables, type Env } from './config.read.js';
import { BusVariables } from './config.schema.js';

/** How Larder signs in to NATS and checks its certificate (docs/operations.md). */
export interface BusSecurity {
  user: string | null;
  password: string | null;
  token: string | null;
  /** absolute paths */
  credsFile: string | null;
  nkeySeedFile: string | null;
  tlsCa: string | null;
  tlsCert: string | null;
  tlsKey: string | null;
}

/** A bus without credentials or TLS settings (PostgreSQL NOTIFY, or NATS as its URL says). */
export const NO_BUS_SECURITY: BusSecurity = {
  user: null,
  password: null,
  token: null,
  credsFile: null,
  nkeySeedFile: null,
  tlsCa: null,
  tlsCert: null,
  tlsKey: null,
};

/** The LARDER_BUS_* settings of a NATS bus: one way to sign in at most, a whole client certificate. */
export function busSecurity(url: string | undefined, env: Env, cwd: string): BusSecurity {
  if (url === undefined) return NO_BUS_SECURITY;
  const v = readVariables(BusVariables, env);
  const file = (p: string | undefined) => (p === undefined ? null : path.resolve(cwd, p));
  const parsed = new URL(url);
  const ways = [
    parsed.username !== '' && 'credentials in LARDER_BUS_URL',
    (v.LARDER_BUS_USER !== undefined || v.LARDER_BUS_PASSWORD !== undefined) &&
      'LARDER_BUS_USER/LARDER_BUS_PASSWORD',
    v.LARDER_BUS_TOKEN !== undefined && 'LARDER_BUS_TOKEN',
    v.LARDER_BUS_CREDS_FILE !== undefined && 'LARDER_BUS_CREDS_FILE',
    v.LARDER_BUS_NKEY_SEED_FILE !== undefined && 'LARDER_BUS_NKEY_SEED_FILE',
  ].filter((way): way is string => way !== false);
  if (ways.length > 1) {
    throw new ConfigError(`LARDER_BUS_URL: sign in to NATS one way, not ${ways.join(' and ')}`);
  }
  if ((v.LARDER_BUS_USER === undefined) !== (v.LARDER_BUS_PASSWORD === undefined)) {
    throw new ConfigError(
      'LARDER_BUS_USER: must be set with LARDER_BUS_PASSWORD, and the other way round',
    );
  }
  if ((v.LARDER_BUS_TLS_CERT === undefined) !== (v.LARDER_BUS_TLS_KEY === undefined)) {
    throw new ConfigError(
      'LARDER_BUS_TLS_CERT: must be set with LARDER_BUS_TLS_KEY, and the other way round',
    );
  }
  return {
    user: v.LARDER_BUS_USER ?? null,
    password: v.LARDER_BUS_PASSWORD ?? null,
    token: v.LARDER_BUS_TOKEN ?? null,
    credsFile: file(v.LARDER_BUS_CREDS_FILE),
    nkeySeedFile: file(v.LARDER_BUS_NKEY_SEED_FILE),
    tlsCa: file(v.LARDER_BUS_TLS_CA),
    tlsCert: file(v.LARDER_BUS_TLS_CERT),
    tlsKey: file(v.LARDER_BUS_TLS_KEY),
  };
}
