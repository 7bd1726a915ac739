import type fs from 'node:fs/promises';

const WINDOW_BYTES = 64 * 1024;

/**
 * Reads a file's small structures (chunk and segment headers) through a 64 kB window, so that
 * walking a million tiny segments costs a few hundred reads instead of a million.
 */
export class FileWindow {
  private start = 0;
  private data: Buffer = Buffer.alloc(0);

  constructor(
    private readonly handle: fs.FileHandle,
    readonly size: number,
  ) {}

  /** Up to `length` bytes at `position` (fewer at the end of the file). */
  async read(position: number, length: number): Promise<Buffer> {
    const end = Math.min(position + length, this.size);
    if (position >= this.start && end <= this.start + this.data.length) {
      return this.data.subarray(position - this.start, end - this.start);
    }
    if (length > WINDOW_BYTES) return this.direct(position, end - position);
    this.start = position;
    this.data = await this.direct(position, Math.min(WINDOW_BYTES, this.size - position));
    return this.data.subarray(0, end - position);
  }

  private async direct(position: number, length: number): Promise<Buffer> {
    const buffer = Buffer.alloc(Math.max(0, length));
    const { bytesRead } = await this.handle.read(buffer, 0, buffer.length, position);
    return buffer.subarray(0, bytesRead);
  }
}
