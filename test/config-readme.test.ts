import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { configTableIn, README_FILE, renderConfigTable } from '#scripts/config-docs.js';
import type { Annotations } from '#src/config/config.kinds.js';
import { ConfigSchema } from '#src/config/config.schema.js';

describe("the README's configuration table", () => {
  it('is the one the schema renders (run `npm run docs:config` after changing src/config/)', () => {
    expect(configTableIn(fs.readFileSync(README_FILE, 'utf8'))).toBe(renderConfigTable());
  });

  it('has a row for every variable, each with a default or what happens when unset', () => {
    const rows = renderConfigTable().split('\n').slice(2);
    expect(rows.map((row) => /^\| `(LARDER_\w+)` \|/.exec(row)?.[1])).toEqual(
      Object.keys(ConfigSchema.properties),
    );
    for (const [name, variable] of Object.entries(ConfigSchema.properties)) {
      const { description, default: value, unset } = variable as unknown as Annotations;
      expect(typeof description, name).toBe('string');
      expect(value === undefined ? unset : value, name).toEqual(expect.any(String));
    }
  });
});
