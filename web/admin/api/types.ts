/**
 * Names for the wire shapes the admin interface uses. They are generated from the server's
 * schemas (web/shared/api/openapi.ts, `npm run generate:api`): never write a shape out here by hand.
 */
import type { components, paths } from '#web/shared/api/openapi.ts';

type Schemas = components['schemas'];
/** The JSON body of a path's successful GET. */
type GetResult<Path extends keyof paths> = paths[Path]['get'] extends {
  responses: { 200: { content: { 'application/json': infer Body } } };
}
  ? Body
  : never;

export type LoginResponse = Schemas['LoginResponse'];
export type User = Schemas['User'];
export type InventoryView = Schemas['InventoryView'];
export type Totals = GetResult<'/api/admin/stats'>;
export type InventoryStats = GetResult<'/api/admin/stats/inventories'>[number];
export type Resource = Schemas['Resource'];
export type AnalyzedResource = Schemas['AnalyzedResource'];
export type TagSuggestion = Schemas['TagSuggestion'];
export type BackupEntry = Schemas['BackupEntry'];
export type AdminItem = Schemas['AdminItem'];
export type BackupInfo = GetResult<'/api/admin/backups/info'>;
export type SignedInSession = Schemas['Session'];
export type OidcInfo = GetResult<'/api/auth/oidc'>;
export type Readiness = Schemas['InventoryReadiness'];
export type JournalEntry = Schemas['JournalEntry'];
