// `npm run generate:api`: writes web/shared/api/openapi.ts from the server's TypeBox schemas.
// test/http/openapi-types.test.ts fails while the checked-in file differs from what this writes.
import fs from 'node:fs';
import path from 'node:path';
import { API_TYPES_FILE, openApiDocument, renderApiTypes } from './api-types.js';

const text = await renderApiTypes(await openApiDocument());
const relative = path.relative(process.cwd(), API_TYPES_FILE);
const current = fs.existsSync(API_TYPES_FILE) ? fs.readFileSync(API_TYPES_FILE, 'utf8') : null;
if (current === text) {
  console.log(`${relative} is up to date`);
} else {
  // untouched when unchanged, so `npm start` does not rebuild the web assets for nothing
  fs.writeFileSync(API_TYPES_FILE, text);
  console.log(`wrote ${relative}`);
}
