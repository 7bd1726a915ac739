import type { JournalTable } from '#src/db/types.js';

export type JournalSource = JournalTable['source'];
export type JournalKind = JournalTable['kind'];

/**
 * Who makes a write, as its journal rows record it: the user (null once deleted; the name
 * stays), the device an offline batch named, and which face of the server the write came in by.
 */
export interface Author {
  userId: string | null;
  username: string;
  deviceId: string | null;
  source: JournalSource;
}

/** A caller of an inventory route (a signed-in user fits). */
export interface Writer {
  id?: string;
  username?: string;
}

/** The author of a write made by `writer` through `source` (and, for the queue, `deviceId`). */
export function authorOf(writer: Writer, source: JournalSource, deviceId?: string): Author {
  return {
    userId: writer.id ?? null,
    username: writer.username ?? '',
    deviceId: deviceId ?? null,
    source,
  };
}
