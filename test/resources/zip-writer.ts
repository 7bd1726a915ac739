import zlib from 'node:zlib';

/**
 * A minimal ZIP writer (stored entries) for test inputs generated at test time. `declaredSize`
 * lets a test lie about an entry's unpacked size, as a crafted bomb would.
 */
export function zipOf(
  files: Record<string, Buffer | string>,
  options: {
    declaredSize?: number;
    declaredSizes?: Record<string, number>;
    encrypted?: boolean;
  } = {},
): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const [name, content] of Object.entries(files)) {
    const data = Buffer.from(content);
    const nameBytes = Buffer.from(name, 'utf8');
    const crc = zlib.crc32(data);
    const size = options.declaredSizes?.[name] ?? options.declaredSize ?? data.length;
    const flags = options.encrypted ? 0x1 : 0;
    const entry = { flags, crc, stored: data.length, size, nameLength: nameBytes.length };
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    writeEntryFields(local, 4, entry);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4); // version made by
    writeEntryFields(central, 6, entry);
    central.writeUInt32LE(offset, 42);
    locals.push(local, nameBytes, data);
    centrals.push(central, nameBytes);
    offset += local.length + nameBytes.length + data.length;
  }
  const centralSize = centrals.reduce((sum, b) => sum + b.length, 0);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(Object.keys(files).length, 8);
  end.writeUInt16LE(Object.keys(files).length, 10);
  end.writeUInt32LE(centralSize, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, ...centrals, end]);
}

/**
 * The fields a local header and its central directory entry share, in the same order from `at`
 * (the central entry has "version made by" before them): version needed, flags, method (0:
 * stored), time and date (0), CRC, stored size, unpacked size (declared), name length.
 */
function writeEntryFields(
  header: Buffer,
  at: number,
  entry: { flags: number; crc: number; stored: number; size: number; nameLength: number },
): void {
  header.writeUInt16LE(20, at);
  header.writeUInt16LE(entry.flags, at + 2);
  header.writeUInt32LE(entry.crc, at + 10);
  header.writeUInt32LE(entry.stored, at + 14);
  header.writeUInt32LE(entry.size, at + 18);
  header.writeUInt16LE(entry.nameLength, at + 22);
}
