import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Annotations } from '#src/config/config.kinds.js';
import { ConfigSchema } from '#src/config/config.schema.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export const README_FILE = path.join(root, 'README.md');

const START =
  '<!-- config-table: written from src/config/ by `npm run docs:config`; edit there -->';
const END = '<!-- /config-table -->';

/** README.md's configuration table, one row per variable of ConfigSchema in its order. */
export function renderConfigTable(): string {
  const rows = Object.entries(ConfigSchema.properties).map(([name, schema]) => {
    const variable = schema as unknown as Annotations;
    const fallback =
      variable.default === undefined
        ? `*(${variable.unset ?? 'unset'})*`
        : `\`${variable.default}\``;
    return `| \`${name}\` | ${cell(fallback)} | ${cell(variable.description)} |`;
  });
  return ['| variable | default | meaning |', '|---|---|---|', ...rows].join('\n');
}

/** A Markdown table cell: a `|` in the text would end it. */
const cell = (text: string) => text.replaceAll('|', '\\|');

/** The table between the markers of `readme`. */
export function configTableIn(readme: string): string {
  const [start, end] = markers(readme);
  return readme.slice(start + START.length, end).trim();
}

/** `readme` with `table` between its markers. */
export function withConfigTable(readme: string, table: string): string {
  const [start, end] = markers(readme);
  return `${readme.slice(0, start + START.length)}\n\n${table}\n\n${readme.slice(end)}`;
}

function markers(readme: string): [number, number] {
  const start = readme.indexOf(START);
  const end = readme.indexOf(END);
  if (start === -1 || end < start) {
    throw new Error(`README.md has no configuration table between ${START} and ${END}`);
  }
  return [start, end];
}
