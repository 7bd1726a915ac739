import { send } from './session/session.ts';

/**
 * Which optional routes this server offers, read from its OpenAPI document (GET
 * /api/openapi.json, public): the shopping list, readiness and minimum stock come with a later
 * server version, and a screen says so honestly instead of calling a route that is not there.
 * Asked once per page load; unknown while offline.
 */
export type Feature = 'shoppingList' | 'readiness' | 'stockLevels';

const PATHS: Record<Feature, string> = {
  shoppingList: '/api/inventory/shopping-list',
  readiness: '/api/inventory/readiness',
  stockLevels: '/api/inventory/stock-levels',
};

let paths: Promise<Set<string>> | null = null;

/** true or false when known, null when the server cannot be asked now. */
export async function offers(feature: Feature): Promise<boolean | null> {
  paths ??= send('/api/openapi.json')
    .then((response) => {
      if (!response.ok) throw new Error(String(response.status));
      return response.json() as Promise<{ paths?: Record<string, unknown> }>;
    })
    .then((doc) => new Set(Object.keys(doc.paths ?? {})));
  try {
    return (await paths).has(PATHS[feature]);
  } catch {
    paths = null;
    return null;
  }
}
