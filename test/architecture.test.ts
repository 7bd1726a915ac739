import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The shape docs/architecture.md promises, held by a test beside the linter's import rules
 * (eslint.config.js): no import circle anywhere in src/, and no source file past 300 lines.
 */
const ROOT = path.resolve(import.meta.dirname, '..');
const SRC = path.join(ROOT, 'src');
const MAX_LINES = 300;

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

const IMPORT =
  /^\s*(?:import|export)\b[^'"]*?\bfrom\s*['"]([^'"]+)['"]|^\s*import\s*['"]([^'"]+)['"]/gm;

/** The files of src/ that `file` imports (type-only imports too: a circle of types is still one). */
function importsOf(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  const found: string[] = [];
  for (const match of text.matchAll(IMPORT)) {
    const spec = match[1] ?? match[2]!;
    let target: string | null = null;
    if (spec.startsWith('#src/')) target = path.join(SRC, spec.slice('#src/'.length));
    else if (spec.startsWith('.')) target = path.resolve(path.dirname(file), spec);
    if (target === null) continue;
    const ts = target.replace(/\.js$/, '.ts');
    if (ts.startsWith(SRC) && fs.existsSync(ts)) found.push(ts);
  }
  return found;
}

/** Every import circle, each once, as the files along it. */
function circles(files: string[]): string[][] {
  const graph = new Map(files.map((file) => [file, importsOf(file)]));
  const found = new Map<string, string[]>();
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (file: string): void => {
    state.set(file, 'open');
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === 'open') {
        const circle = stack.slice(stack.indexOf(next)).map((f) => path.relative(ROOT, f));
        found.set([...circle].sort().join(' '), circle);
      } else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(file, 'done');
  };
  for (const file of files) if (!state.has(file)) visit(file);
  return [...found.values()];
}

describe('the shape of src/', () => {
  const files = sourceFiles(SRC);

  it('has no import circle', () => {
    expect(circles(files)).toEqual([]);
  });

  it(`has no source file over ${MAX_LINES} lines`, () => {
    const long = files
      .map((file) => ({
        file: path.relative(ROOT, file),
        lines: fs.readFileSync(file, 'utf8').split('\n').length - 1,
      }))
      .filter(({ lines }) => lines > MAX_LINES);
    expect(long).toEqual([]);
  });

  it('imports from another folder through #src/, never ../', () => {
    const climbing = files.filter((file) =>
      /\bfrom\s*['"]\.\.\//.test(fs.readFileSync(file, 'utf8')),
    );
    expect(climbing.map((file) => path.relative(ROOT, file))).toEqual([]);
  });
});
