import Type from 'typebox';
import { accountVariables } from './accounts.schema.js';
import { busVariables } from './bus.schema.js';
import { limitVariables } from './limits.schema.js';
import { oidcIssuer, oidcVariables } from './oidc.schema.js';
import { serverVariables } from './server.schema.js';
import { s3Variables, storageKind } from './storage.schema.js';

/** The variables read at every start. */
export const Variables = Type.Object({
  ...serverVariables,
  ...accountVariables,
  ...limitVariables,
  ...storageKind,
  ...oidcIssuer,
});

/** The rest of LARDER_OIDC_*, read only when LARDER_OIDC_ISSUER is set (else ignored). */
export const OidcVariables = Type.Object(oidcVariables);

/** The rest of LARDER_BUS_*, read only when LARDER_BUS_URL is set. */
export const BusVariables = Type.Object(busVariables);

/** The rest of LARDER_S3_*, read only when LARDER_STORAGE=s3. */
export const S3Variables = Type.Object(s3Variables);

/**
 * Every LARDER_* variable, declared once: its type, constraints, default, error and description.
 * loadConfig reads and decodes through it; `npm run docs:config` renders the README's table from
 * it, in this order.
 */
export const ConfigSchema = Type.Object({
  ...Variables.properties,
  ...BusVariables.properties,
  ...S3Variables.properties,
  ...OidcVariables.properties,
});
