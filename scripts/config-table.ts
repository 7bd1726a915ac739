// `npm run docs:config`: writes README.md's configuration table from the schema in src/config/.
// test/config-readme.test.ts fails while the README's table differs from what this writes.
import fs from 'node:fs';
import { README_FILE, renderConfigTable, withConfigTable } from './config-docs.js';

const current = fs.readFileSync(README_FILE, 'utf8');
const text = withConfigTable(current, renderConfigTable());
if (text === current) {
  console.log('README.md: the configuration table is up to date');
} else {
  fs.writeFileSync(README_FILE, text);
  console.log('README.md: wrote the configuration table');
}
