import type { Executor } from '#src/db/executor.js';
import { deleteRows, findRow, takeRow } from '#src/db/rows.js';
import type { OidcCodesTable, OidcLinksTable, OidcRequestsTable } from '#src/db/types.js';

export type OidcRequestRow = OidcRequestsTable;

export function findLinkBySubject(
  db: Executor,
  issuer: string,
  subject: string,
): Promise<OidcLinksTable | undefined> {
  return findRow(db, 'oidc_links', { issuer, subject });
}

export async function insertLink(db: Executor, row: OidcLinksTable): Promise<void> {
  await db.insertInto('oidc_links').values(row).execute();
}

export async function deleteLink(db: Executor, userId: string): Promise<boolean> {
  return (await deleteRows(db, 'oidc_links', { user_id: userId })) > 0;
}

export async function insertRequest(db: Executor, row: OidcRequestRow): Promise<void> {
  await db.insertInto('oidc_requests').values(row).execute();
}

/** Takes an authorization request out: a state works once, whoever presents it first. */
export function takeRequest(db: Executor, stateHash: string): Promise<OidcRequestRow | undefined> {
  return takeRow(db, 'oidc_requests', { state_hash: stateHash });
}

export async function insertCode(db: Executor, row: OidcCodesTable): Promise<void> {
  await db.insertInto('oidc_codes').values(row).execute();
}

/** Takes a code out: it works once, whoever presents it first. */
export function takeCode(db: Executor, codeHash: string): Promise<OidcCodesTable | undefined> {
  return takeRow(db, 'oidc_codes', { code_hash: codeHash });
}

export async function deleteExpired(db: Executor, now: number): Promise<void> {
  await db.deleteFrom('oidc_requests').where('expires_at', '<', now).execute();
  await db.deleteFrom('oidc_codes').where('expires_at', '<', now).execute();
}
