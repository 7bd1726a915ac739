import { badRequest } from '#src/http/errors.js';

export const MAX_BODY_CHARACTERS = 4000;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
// a lone surrogate cannot be stored as UTF-8; NUL cannot be stored in PostgreSQL text
// eslint-disable-next-line no-control-regex
const UNSTORABLE = /[\u0000\p{Cs}]/u;

/** User ids and message ids are UUIDs; anything else cannot name a stored record. */
export const isUuid = (value: unknown): value is string =>
  typeof value === 'string' && UUID.test(value);

/** A message body: text, not blank, at most 4000 characters (code points). */
export function checkBody(body: unknown): asserts body is string {
  if (typeof body !== 'string') throw badRequest('body.body must be a string');
  if (body.trim() === '') throw badRequest('body.body must not be empty or only whitespace');
  if ([...body].length > MAX_BODY_CHARACTERS) {
    throw badRequest(`body.body must be at most ${MAX_BODY_CHARACTERS} characters`);
  }
  if (UNSTORABLE.test(body)) {
    throw badRequest('body.body must be valid Unicode text without NUL characters');
  }
}
