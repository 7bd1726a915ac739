/** Users, their sign-ins (sessions, refresh tokens, throttling) and OpenID Connect links. */

export interface UsersTable {
  id: string;
  username: string;
  /** lower-cased username: uniqueness ignores letter case */
  username_key: string;
  password_hash: string;
  is_admin: number;
  inventory_id: string | null;
  token_version: number;
  created_at: number;
}

/** A sign-in: the refresh-token family of that sign-in has the same id. */
export interface SessionsTable {
  id: string;
  user_id: string;
  created_at: number;
  last_used_at: number;
  user_agent: string | null;
  address: string | null;
}

/** Failed sign-ins counted per username, per address and per (username, address). */
export interface LoginThrottleTable {
  key: string;
  /** failures (and attempts in progress) in the current window */
  failures: number;
  window_ends_at: number;
  /** no attempt before this time (the growing delay), epoch ms; 0 for none */
  next_attempt_at: number;
}

export interface RefreshTokensTable {
  token_hash: string;
  user_id: string;
  family_id: string;
  /** the user's token version when issued: a password change invalidates the token */
  token_version: number;
  expires_at: number;
  created_at: number;
  used_at: number | null;
}

/** A user who signs in through the OpenID provider: matched by (issuer, subject) only. */
export interface OidcLinksTable {
  user_id: string;
  issuer: string;
  subject: string;
  created_at: number;
}

/** An authorization request on its way through the provider (state, nonce, PKCE verifier). */
export interface OidcRequestsTable {
  state_hash: string;
  /** 'web-app': a web sign-in started from the household app, which lands back on /app/ */
  kind: 'web' | 'web-app' | 'app' | 'link';
  nonce: string;
  code_verifier: string;
  /** Larder's redirect URI at the provider, as sent in the authorization request */
  callback_url: string;
  /** SHA-256 of the cookie set in the browser that started it (web and link) */
  browser_hash: string | null;
  app_redirect_uri: string | null;
  /** S256 challenge of the app's verifier */
  app_code_challenge: string | null;
  /** the signed-in user a link request is for */
  user_id: string | null;
  expires_at: number;
}

/** A finished sign-in waiting to be exchanged for tokens: single use, 60 s. */
export interface OidcCodesTable {
  code_hash: string;
  user_id: string;
  code_challenge: string | null;
  expires_at: number;
}
