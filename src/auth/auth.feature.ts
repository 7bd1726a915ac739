import type { Feature, FeatureDeps } from '#src/feature.js';
import { createGuards } from '#src/http/auth.js';
import type { UsersService } from '#src/users/users.service.js';
import { authRoutes } from './auth.routes.js';
import { createAuthService } from './auth.service.js';
import { createLoginThrottle } from './login-throttle.service.js';
import { createOidcClient } from './oidc/oidc.client.js';
import { oidcRoutes } from './oidc/oidc.routes.js';
import { createOidcService } from './oidc/oidc.service.js';
import { createPasswordHasher } from './passwords.service.js';
import { createSigningKeys, KEY_REFRESH_MS } from './keys.service.js';
import { readLegacyJwtSecret } from './secret.js';
import { createSessionStore } from './sessions.service.js';
import { createAccessTokens } from './tokens.service.js';

const HOUR_MS = 3600_000;
/** Expired login-failure counters are swept once per window, but not more often than this. */
const MIN_THROTTLE_SWEEP_MS = 60_000;

type Deps = FeatureDeps;

/**
 * The first half of auth, built before the users service: the password hasher, the signing keys
 * and the tokens they sign, the failed-login throttle and the sessions. Users asks auth's hasher
 * and sessions through `credentials` (users imports nothing from auth).
 */
export function createCredentials(deps: Deps) {
  const { config, database, bus, log, clock } = deps;
  const db = database.db;
  const hasher = createPasswordHasher(config.bcryptCost);
  const signingKeys = createSigningKeys({
    db,
    bus,
    clock,
    log,
    ttlSeconds: config.accessTokenTtlSeconds,
    legacySecret: () => readLegacyJwtSecret(config.jwtSecret, config.dataDir),
  });
  const loginThrottle = createLoginThrottle({
    db,
    limit: config.loginRateLimit,
    windowMs: config.loginRateWindowSeconds * 1000,
    clock,
  });
  const sessions = createSessionStore({ db, bus, clock, log, dataVersion: database.dataVersion });
  return {
    hasher,
    signingKeys,
    tokens: createAccessTokens(signingKeys, config.accessTokenTtlSeconds),
    loginThrottle,
    sessions,
    credentials: {
      hash: hasher.hash,
      endSessions: sessions.endAllOf,
      forgetUser: sessions.forgetUser,
    },
  };
}

/**
 * Sign-in, refresh and sessions (and sign-in through the household's identity provider when
 * LARDER_OIDC_ISSUER is set), the guards every route uses, and auth's jobs: pruning, key refresh,
 * the throttle's eviction.
 */
export function authFeature(
  deps: Deps & { users: UsersService; parts: ReturnType<typeof createCredentials> },
) {
  const { config, database, bus, log, clock, users, parts } = deps;
  const { hasher, signingKeys, tokens, loginThrottle, sessions } = parts;
  const db = database.db;
  const auth = createAuthService({
    db,
    bus,
    users,
    hasher,
    tokens,
    throttle: loginThrottle,
    sessions,
    refreshTtlSeconds: config.refreshTokenTtlSeconds,
    passwordSignIn: config.passwordSignIn,
    clock,
  });
  const oidc = config.oidc
    ? createOidcService({
        db,
        config: config.oidc,
        provider: createOidcClient(config.oidc),
        auth,
        users,
        clock,
        log,
      })
    : null;
  const stopKeys = signingKeys.connect();
  const feature: Feature = {
    name: 'auth',
    routes: (guards) => [
      authRoutes({ auth, users, guards, signInRoutes: oidcRoutes({ oidc, config, guards }) }),
    ],
    jobs: () => [
      // with the refresh tokens, the signing keys whose access tokens have all expired
      {
        name: 'refresh-token-pruning',
        everyMs: HOUR_MS,
        run: () => Promise.all([auth.pruneExpired(), signingKeys.pruneRetired()]),
      },
      // keys rotated elsewhere are heard of over the bus; this catches an event that was lost
      { name: 'signing-key-refresh', everyMs: KEY_REFRESH_MS, run: () => signingKeys.reload() },
      { name: 'oidc-request-pruning', everyMs: HOUR_MS, run: () => oidc?.pruneExpired() },
      {
        name: 'login-throttle-eviction',
        everyMs: Math.max(config.loginRateWindowSeconds * 1000, MIN_THROTTLE_SWEEP_MS),
        run: () => loginThrottle.evictExpired(),
      },
    ],
    start: () => signingKeys.load(),
    async close() {
      stopKeys();
      await sessions.close();
      await hasher.close();
    },
  };
  return {
    auth,
    oidc,
    signingKeys,
    loginThrottle,
    guards: createGuards(auth, config.adminToken),
    feature,
  };
}
