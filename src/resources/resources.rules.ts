import { AppError, badRequest } from '#src/http/errors.js';
import { findUnstorable, stripBidiDeep } from '#src/http/text.js';
import { MAX_TAG_LENGTH, MAX_TAGS, normalizeTags } from './resources.tags.js';

export const MAX_DESCRIPTION = 4096;
export const MAX_TITLE = 500;

/** The editable fields of a resource, validated and normalised (named as on the wire). */
export interface ResourceInput {
  title: string;
  description: string;
  tags: string[];
  author: string | null;
  language: string | null;
  edition: string | null;
  releaseDate: string | null;
}

/**
 * Validates the `metadata` of an upload or the body of a confirm: a title is required, the
 * description is at most 4096 characters (kept as Markdown text), optional texts may be null or
 * empty. Server-owned fields (guid, downloadUrl, fileSize, timestamps...) are ignored.
 */
export function parseResourceInput(value: unknown): ResourceInput {
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    throw badRequest('metadata must be a JSON object describing the resource');
  }
  const v = value as Record<string, unknown>;
  const title = typeof v.title === 'string' ? v.title.trim() : '';
  if (!title) throw badRequest('metadata.title is required');
  if (title.length > MAX_TITLE) {
    throw badRequest(`metadata.title must be at most ${MAX_TITLE} characters`);
  }
  const description = v.description ?? '';
  if (typeof description !== 'string') throw badRequest('metadata.description must be a string');
  if (description.length > MAX_DESCRIPTION) {
    throw badRequest(`metadata.description must be at most ${MAX_DESCRIPTION} characters`);
  }
  const tags = v.tags ?? [];
  if (!Array.isArray(tags) || tags.some((t) => typeof t !== 'string') || tags.length > MAX_TAGS) {
    throw badRequest(`metadata.tags must be an array of at most ${MAX_TAGS} strings`);
  }
  if ((tags as string[]).some((t) => t.replace(/\s+/g, ' ').trim().length > MAX_TAG_LENGTH)) {
    throw badRequest(`metadata.tags: each tag must be at most ${MAX_TAG_LENGTH} characters`);
  }
  const releaseDate = optionalText(v, 'releaseDate', 10);
  if (releaseDate !== null && !isCalendarDate(releaseDate)) {
    throw badRequest('metadata.releaseDate must be a date YYYY-MM-DD or null');
  }
  const language = optionalText(v, 'language', 35);
  if (language !== null && !/^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$/.test(language)) {
    throw badRequest('metadata.language must be a language code such as de or en');
  }
  return {
    title,
    description,
    tags: normalizeTags(tags as string[]),
    author: optionalText(v, 'author', 500),
    language: language?.toLowerCase() ?? null,
    edition: optionalText(v, 'edition', 200),
    releaseDate,
  };
}

/**
 * The body of a metadata edit: the fields sent replace the stored ones, then the whole is
 * validated exactly as an upload's metadata is.
 */
export function parseResourcePatch(patch: object, current: ResourceInput): ResourceInput {
  const merged: Record<string, unknown> = { ...current };
  for (const [key, value] of Object.entries(patch)) {
    if (value !== undefined) merged[key] = value;
  }
  return parseResourceInput(merged);
}

/** The `metadata` multipart part: JSON text. */
export function parseMetadataText(text: string | null): ResourceInput {
  if (text === null) throw badRequest('The multipart part "metadata" is missing');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw badRequest('The multipart part "metadata" is not valid JSON');
  }
  const unstorable = findUnstorable(value, 'metadata');
  if (unstorable) throw badRequest(unstorable);
  return parseResourceInput(stripBidiDeep(value));
}

function optionalText(v: Record<string, unknown>, field: string, max: number): string | null {
  const value = v[field];
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw badRequest(`metadata.${field} must be a string or null`);
  const trimmed = value.trim();
  if (trimmed.length > max) throw badRequest(`metadata.${field} must be at most ${max} characters`);
  return trimmed.length > 0 ? trimmed : null;
}

function isCalendarDate(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const date = new Date(`${value}T00:00:00Z`);
  return !isNaN(date.getTime()) && date.toISOString().startsWith(value);
}

export const unsupportedFormat = (message: string) =>
  new AppError(415, 'unsupported_format', message);
export const payloadTooLarge = (message: string) => new AppError(413, 'payload_too_large', message);
