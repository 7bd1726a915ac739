import fs from 'node:fs/promises';
import path from 'node:path';

/**
 * Turns the still-encoded URL path below a mount point (for example `app%20v2.apk` below
 * `/static/`) into an absolute file path inside `root`, or null when it is not a plain file there.
 * Refused: empty, `.` or `..` segments (also percent-encoded), hidden names, backslashes, NUL,
 * encoded slashes, malformed escapes, and anything whose real path (symlinks resolved) leaves
 * `root`.
 */
export async function resolveInside(root: string, encodedPath: string): Promise<string | null> {
  const segments = plainSegments(encodedPath);
  if (segments === null) return null;
  const rootReal = await realpathOrNull(root);
  if (rootReal === null) return null;
  const candidate = path.resolve(rootReal, ...segments);
  if (!isWithin(rootReal, candidate)) return null;
  const real = await realpathOrNull(candidate);
  if (real === null || !isWithin(rootReal, real)) return null;
  return real;
}

/** The decoded segments of a still-encoded URL path, or null when one is refused (see above). */
export function plainSegments(encodedPath: string): string[] | null {
  if (encodedPath.length === 0 || encodedPath.length > 1024) return null;
  const segments: string[] = [];
  for (const raw of encodedPath.split('/')) {
    let segment: string;
    try {
      segment = decodeURIComponent(raw);
    } catch {
      return null;
    }
    if (!isPlainSegment(segment)) return null;
    segments.push(segment);
  }
  return segments;
}

function isPlainSegment(segment: string): boolean {
  return (
    segment.length > 0 &&
    !segment.startsWith('.') &&
    !/[\\/\0:]/.test(segment) &&
    // eslint-disable-next-line no-control-regex
    !/[\x00-\x1f\x7f]/.test(segment)
  );
}

function isWithin(root: string, candidate: string): boolean {
  return candidate.startsWith(root + path.sep);
}

async function realpathOrNull(p: string): Promise<string | null> {
  try {
    return await fs.realpath(p);
  } catch {
    return null;
  }
}
