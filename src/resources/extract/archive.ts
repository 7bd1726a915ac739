/** Limits every archive is read under; a zip bomb trips them before any data is unpacked. */
export interface ArchiveLimits {
  maxEntries: number;
  /** sum of the declared unpacked sizes of all entries, skipped ones included */
  maxTotalBytes: number;
}

/**
 * An entry name longer than this (UTF-8 bytes) refuses the whole archive: real documents have
 * short names, and a listing of 1000 names of 64 kB each would be 64 MB to hold.
 */
export const MAX_ENTRY_NAME_BYTES = 1024;

export interface ArchiveMember {
  /** the entry's name inside the archive: a label only, never used as a path */
  name: string;
  size: number;
}

/**
 * Decides what happens to each member: a file path to write it to (a generated name chosen by
 * the caller), or null to skip it.
 */
export type ChooseTarget = (member: ArchiveMember) => string | null;

export type ArchiveProblem = 'corrupt' | 'encrypted' | 'too_many_entries' | 'too_large';

/** The archive as a whole is refused; nothing from it is kept. */
export class ArchiveRefusedError extends Error {
  constructor(
    readonly problem: ArchiveProblem,
    message: string,
  ) {
    super(message);
  }
}

export const nameTooLong = (format: string) =>
  new ArchiveRefusedError(
    'too_large',
    `The ${format} archive has an entry name longer than ${MAX_ENTRY_NAME_BYTES} bytes`,
  );

/** Checks a listing against the limits; returns the declared unpacked total. */
export function checkListing(
  format: string,
  members: { size: number; encrypted: boolean }[],
  limits: ArchiveLimits,
): number {
  if (members.length > limits.maxEntries) {
    throw new ArchiveRefusedError(
      'too_many_entries',
      `The ${format} archive has ${members.length} entries; at most ${limits.maxEntries} are accepted`,
    );
  }
  const total = members.reduce((sum, m) => sum + m.size, 0);
  if (total > limits.maxTotalBytes) {
    throw new ArchiveRefusedError(
      'too_large',
      `The ${format} archive unpacks to ${total} bytes; at most ${limits.maxTotalBytes} are accepted`,
    );
  }
  if (members.some((m) => m.encrypted)) {
    throw new ArchiveRefusedError(
      'encrypted',
      `The ${format} archive is password-protected; upload it without encryption`,
    );
  }
  return total;
}
