import fs from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { API_TYPES_FILE, openApiDocument, renderApiTypes } from '#scripts/api-types.js';
import type { OpenAPI3 } from 'openapi-typescript';

// The document comes from route schemas alone, the same on either dialect: built once, on SQLite.
describe('the types of both web interfaces, generated from the OpenAPI document', () => {
  let document: OpenAPI3;
  beforeAll(async () => {
    document = await openApiDocument();
  });

  it('are the checked-in web/shared/api/openapi.ts (run npm run generate:api after a schema change)', async () => {
    const expected = await renderApiTypes(document);
    const checkedIn = fs.existsSync(API_TYPES_FILE) ? fs.readFileSync(API_TYPES_FILE, 'utf8') : '';
    expect(
      checkedIn,
      'web/shared/api/openapi.ts differs from the server schemas: run npm run generate:api and commit it',
    ).toBe(expected);
  });

  it('name every shape the admin interface reads as a component', () => {
    expect(Object.keys(document.components?.schemas ?? {})).toEqual(
      expect.arrayContaining([
        'LoginResponse',
        'User',
        'InventoryView',
        'Resource',
        'AnalyzedResource',
        'TagSuggestion',
        'BackupEntry',
      ]),
    );
  });
});
