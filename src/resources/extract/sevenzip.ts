import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import SevenZipImport, { type SevenZipModuleFactory } from '7z-wasm';
import {
  ArchiveRefusedError,
  checkListing,
  MAX_ENTRY_NAME_BYTES,
  nameTooLong,
  type ArchiveLimits,
  type ArchiveMember,
  type ChooseTarget,
} from './archive.js';
import { MAX_7Z_HEADER_BYTES, sevenZipHeaderSize } from './sevenzip-header.js';

// a CommonJS (UMD) module: the factory is the default export at run time, typed one level down
const SevenZip = ((SevenZipImport as unknown as { default?: SevenZipModuleFactory }).default ??
  SevenZipImport) as SevenZipModuleFactory;

/**
 * 7-Zip's WebAssembly, compiled once per worker: every run still gets a fresh instance (its own
 * memory), without compiling 1.5 MB of code again (CPU the server's other threads share).
 */
let compiled: Promise<object> | null = null;
const wasmModule = () =>
  (compiled ??= fs.promises
    .readFile(createRequire(import.meta.url).resolve('7z-wasm/7zz.wasm'))
    .then((bytes) => wasm.compile(bytes)));
/** the WebAssembly API (its types ship with the DOM library, which this server does not use) */
const wasm = (
  globalThis as unknown as {
    WebAssembly: {
      compile(bytes: Uint8Array): Promise<object>;
      instantiate(module: object, imports: object): Promise<object>;
    };
  }
).WebAssembly;

const corrupt = (why: string) =>
  new ArchiveRefusedError('corrupt', `The 7z archive is corrupt or truncated: ${why}`);
/** 7-Zip's `l -slt` output kept: 1000 entries of at most 1 kB names and ~300 bytes of fields. */
const MAX_LISTING_BYTES = 2 * 1024 * 1024;

interface Listed extends ArchiveMember {
  isDirectory: boolean;
  encrypted: boolean;
}

/**
 * 7-Zip compiled to WebAssembly, a fresh instance per run, so that nothing of one archive (nor
 * the state a failed run leaves) reaches the next. The archive's folder is mounted
 * read-only-in-practice through NODEFS; nothing is ever extracted onto a real path by 7-Zip
 * itself: `e -so` streams every member, in archive order, to stdout, and the bytes are routed to
 * the caller's generated file names by the sizes from the listing. The header's size is checked
 * before 7-Zip reads it. Returns the declared unpacked size of every entry, skipped ones included
 * (7-Zip unpacks them all).
 */
export async function extractSevenZip(
  file: string,
  limits: ArchiveLimits,
  choose: ChooseTarget,
): Promise<number> {
  const headerSize = await sevenZipHeaderSize(file);
  if (headerSize !== null && headerSize > MAX_7Z_HEADER_BYTES) {
    throw new ArchiveRefusedError(
      'too_large',
      `The 7z archive's header unpacks to ${headerSize} bytes; at most ${MAX_7Z_HEADER_BYTES} are accepted (too many entries or too long names)`,
    );
  }
  const listing = await run(file, ['l', '-slt', '-t7z'], null);
  if (listing.overflow) {
    throw new ArchiveRefusedError('too_large', 'The 7z archive lists more than 2 MB of entries');
  }
  if (listing.code !== 0) throw corrupt(listing.errors || 'cannot open the file as a 7z archive');
  const members = parseListing(listing.output).filter((m) => !m.isDirectory);
  if (members.some((m) => Buffer.byteLength(m.name) > MAX_ENTRY_NAME_BYTES)) {
    throw nameTooLong('7z');
  }
  const total = checkListing('7z', members, limits);
  const targets = members.map((m) => (m.size > 0 ? choose(m) : null));
  if (targets.every((t) => t === null)) return total;

  const router = createRouter(members, targets);
  try {
    const result = await run(file, ['e', '-so', '-t7z'], router.write);
    router.finish();
    if (result.code !== 0) throw corrupt(result.errors || `7-Zip exit code ${result.code}`);
    if (router.total() !== total) throw corrupt('the unpacked size does not match the listing');
  } catch (err) {
    router.abort();
    throw err;
  }
  return total;
}

async function run(
  file: string,
  args: string[],
  sink: ((byte: number) => void) | null,
): Promise<{ code: number; output: string; errors: string; overflow: boolean }> {
  const output = Buffer.alloc(sink ? 0 : MAX_LISTING_BYTES);
  let length = 0;
  let overflow = false;
  const collect = (byte: number) => {
    if (length < output.length) output[length++] = byte;
    else overflow = true;
  };
  let errors = '';
  const previousExitCode = process.exitCode;
  const module = await wasmModule();
  const options = {
    // Emscripten's hook: instantiate the already compiled module instead of fetching the file
    instantiateWasm: (imports: object, receive: (instance: object, module: object) => void) => {
      void wasm.instantiate(module, imports).then((instance) => receive(instance, module));
      return {};
    },
    stdout: sink ?? collect,
    stderr: (byte: number) => void (errors.length < 2000 && (errors += String.fromCharCode(byte))),
  };
  const sevenZip = await SevenZip(options);
  sevenZip.FS.mkdir('/in');
  sevenZip.FS.mount(sevenZip.NODEFS, { root: path.dirname(file) }, '/in');
  let code: number;
  try {
    // -p with a dummy password: an encrypted archive fails instead of prompting for one
    const result = sevenZip.callMain([...args, '-pnone', '-bd', `/in/${path.basename(file)}`]);
    code = typeof result === 'number' ? result : 0;
  } catch (thrown) {
    code = typeof thrown === 'number' ? thrown || 2 : 2; // 7-Zip throws bare exit codes
  } finally {
    process.exitCode = previousExitCode; // 7z-wasm sets it on failure
  }
  // 7-Zip's reasons without the lines naming our temp file (".tmp-<uuid>" means nothing to the admin)
  const base = path.basename(file);
  const cleaned = errors
    .replace(/\/in\//g, '')
    .split(/ERRORS?:/)
    .map((part) => part.replace(/\s+/g, ' ').trim())
    .filter((part) => part && !part.includes(base))
    .join('; ');
  return { code, output: output.toString('utf8', 0, length), errors: cleaned, overflow };
}

function parseListing(text: string): Listed[] {
  const body = text.split(/^-{10}$/m)[1] ?? '';
  return body
    .split(/\n\s*\n/)
    .map((block) => {
      const fields = new Map<string, string>();
      for (const line of block.split('\n')) {
        const match = /^([A-Za-z ]+?) = ?(.*)$/.exec(line.trim());
        if (match) fields.set(match[1]!, match[2]!);
      }
      return fields;
    })
    .filter((f) => f.has('Path'))
    .map((f) => ({
      name: f.get('Path')!,
      size: Number(f.get('Size') || 0),
      isDirectory: f.get('Folder') === '+' || /^D/.test(f.get('Attributes') ?? ''),
      encrypted: f.get('Encrypted') === '+',
    }));
}

/** Sends the concatenated stdout bytes to the member each belongs to, 64 kB at a time. */
function createRouter(members: Listed[], targets: (string | null)[]) {
  const buffer = Buffer.alloc(64 * 1024);
  let fill = 0;
  let index = -1;
  let remaining = 0;
  let fd: number | null = null;
  let total = 0;
  const flush = () => {
    if (fd !== null && fill > 0) fs.writeSync(fd, buffer, 0, fill);
    fill = 0;
  };
  const close = () => {
    flush();
    if (fd !== null) fs.closeSync(fd);
    fd = null;
  };
  const advance = () => {
    close();
    do index++;
    while (index < members.length && members[index]!.size === 0);
    remaining = members[index]?.size ?? Infinity;
    const target = targets[index];
    if (target) fd = fs.openSync(target, 'wx');
  };
  return {
    write(byte: number) {
      total++;
      if (remaining === 0 || index < 0) advance();
      remaining--;
      if (fd === null) return;
      buffer[fill++] = byte;
      if (fill === buffer.length) flush();
    },
    finish: close,
    total: () => total,
    abort() {
      if (fd !== null) fs.closeSync(fd);
      fd = null;
      for (const target of targets) if (target) fs.rmSync(target, { force: true });
    },
  };
}
