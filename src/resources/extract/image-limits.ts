import zlib from 'node:zlib';
import { UnreadableFileError } from './types.js';

/**
 * Chunks (PNG, WebP) or segments before the image data (JPEG) one image may have. Real files
 * have a few dozen (a 25 MB PNG in 8 kB IDAT chunks: about 3,000); a 5 MB JPEG of 1.25 million
 * empty segments is refused after reading 400 kB instead of walked for a minute.
 */
export const MAX_IMAGE_CHUNKS = 100_000;

/**
 * Metadata bytes one image may yield, summed over every chunk, read or inflated: real XMP and
 * EXIF are a few kB. Past it the image is refused: a PNG of 400 zTXt chunks inflating to 4 MB
 * each stops after 2 MB of inflating, instead of 1.6 GB.
 */
const MAX_IMAGE_METADATA_BYTES = 2 * 1024 * 1024;

/** What is left of MAX_IMAGE_METADATA_BYTES while one image is read. */
export class MetadataBudget {
  private left = MAX_IMAGE_METADATA_BYTES;

  constructor(private readonly format: string) {}

  /** Takes `bytes` from the budget; refuses the image when they do not fit. */
  take(bytes: number): void {
    if (bytes > this.left) throw this.overBudget();
    this.left -= bytes;
  }

  /** zlib data inflated within what is left; empty when the data is corrupt. */
  inflate(data: Buffer): Buffer {
    let out: Buffer;
    try {
      out = zlib.inflateSync(data, { maxOutputLength: this.left + 1 });
    } catch (err) {
      if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw this.overBudget();
      return Buffer.alloc(0); // damaged text is skipped, as before
    }
    this.take(out.length);
    return out;
  }

  private overBudget(): UnreadableFileError {
    return new UnreadableFileError(
      `not a readable ${this.format} (its metadata is larger than ${MAX_IMAGE_METADATA_BYTES / 1024 / 1024} MB)`,
    );
  }
}
