/** Limits every archive is read under; a zip bomb trips them before any data is unpacked. */
export interface ArchiveLimits {
  maxEntries: number;
  /** sum of the declared unpacked sizes of all entries */
  maxTotalBytes: number;
}

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

export function checkListing(
  format: string,
  members: { size: number; encrypted: boolean }[],
  limits: ArchiveLimits,
): void {
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
}
