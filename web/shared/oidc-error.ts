import type { Messages } from '#src/i18n/locales/en.ts';
import type { Translate } from '#web/shared/i18n.ts';

/** The `oidc_error` codes that have a message of their own (`oidc.error.<code>` in the catalogues). */
type OidcErrorCode = keyof Messages extends infer K
  ? K extends `oidc.error.${infer Code}`
    ? Code
    : never
  : never;

/**
 * Every code the server's OIDC callback sends back (src/auth/oidc/oidc.accounts.ts): a message
 * added to the catalogues for a new code must be named here too, or this does not typecheck.
 */
const KNOWN: Record<OidcErrorCode, true> = {
  not_linked: true,
  not_allowed: true,
  invalid_state: true,
  provider_error: true,
  already_linked: true,
};

const isKnown = (code: string): code is OidcErrorCode => Object.hasOwn(KNOWN, code);

/**
 * The message for the `?oidc_error=` the provider's round trip ended with, in the page's
 * language (`t`): the same in the admin interface and the household app. A code this version
 * does not know reads as the provider's failure.
 */
export function oidcErrorMessage(t: Translate, code: string): string {
  return t(`oidc.error.${isKnown(code) ? code : 'provider_error'}`);
}
