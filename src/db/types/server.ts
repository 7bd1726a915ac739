/** What every instance shares through the database: signing keys and server-wide settings. */

/** A JWT signing key; `secret` is used as its UTF-8 bytes (HS256). */
export interface JwtKeysTable {
  kid: string;
  secret: string;
  /** 1 for the first key, n + 1 for the key a rotation adds: the highest live one signs */
  generation: number;
  /** 1: the secret from before keys had a kid, which alone verifies kid-less tokens */
  legacy: number;
  created_at: number;
  /** when it stops verifying; null while it signs */
  retired_at: number | null;
}

/** A server-wide setting by name (`version`), its value as JSON. */
export interface ServerSettingsTable {
  name: string;
  value: string;
  updated_at: number;
}
