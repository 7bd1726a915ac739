/**
 * Unicode bidirectional controls (embeddings, overrides, isolates and the LRM/RLM/ALM marks).
 * In a name they can make `evil‮fdp.exe` read as `evil.exe.pdf` (CVE-2021-42574, "Trojan
 * Source"); no household name or title needs them, so they are removed from every text a client
 * sends (passwords excepted) and from names read out of uploaded files.
 */
const BIDI_CONTROL = /\p{Bidi_Control}/u;
const BIDI_CONTROLS = /\p{Bidi_Control}/gu;

export function stripBidiControls(text: string): string {
  return BIDI_CONTROL.test(text) ? text.replace(BIDI_CONTROLS, '') : text;
}

/** Fields whose exact bytes matter (a password with U+200F must keep verifying). */
const VERBATIM_KEY = /password/i;

/**
 * Removes bidi controls from every string (and key) of a parsed JSON value, in place where the
 * value is a plain object or array; returns the cleaned value.
 */
export function stripBidiDeep(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return stripBidiControls(value);
  if (value === null || typeof value !== 'object' || depth > 64) return value;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = stripBidiDeep(value[i], depth + 1);
    return value;
  }
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return value;
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (VERBATIM_KEY.test(key)) continue;
    const cleanKey = stripBidiControls(key);
    const cleanValue = stripBidiDeep(record[key], depth + 1);
    if (cleanKey !== key) delete record[key];
    record[cleanKey] = cleanValue;
  }
  return record;
}

/** Deeper JSON than this is refused: no Larder body nests more than a few levels. */
const MAX_JSON_DEPTH = 64;

/**
 * Why a parsed JSON value cannot be stored: the path of the first string (or key) holding U+0000
 * (PostgreSQL text cannot hold it), or of a level nested deeper than MAX_JSON_DEPTH; else null.
 */
export function findUnstorable(value: unknown, path: string, depth = 0): string | null {
  if (typeof value === 'string')
    return value.includes('\0') ? `${path} must not contain the NUL character (U+0000)` : null;
  if (value === null || typeof value !== 'object') return null;
  const proto: unknown = Object.getPrototypeOf(value);
  if (!Array.isArray(value) && proto !== Object.prototype && proto !== null) return null;
  if (depth >= MAX_JSON_DEPTH) return `${path} is nested more than ${MAX_JSON_DEPTH} levels deep`;
  for (const [key, child] of Object.entries(value)) {
    const found = key.includes('\0')
      ? `${path}.${key.replace(/\0/g, '\\0')} must not contain the NUL character (U+0000)`
      : findUnstorable(child, `${path}.${key}`, depth + 1);
    if (found) return found;
  }
  return null;
}
