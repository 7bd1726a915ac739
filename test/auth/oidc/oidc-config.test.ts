import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '#src/config.js';

const base = { LARDER_OIDC_CLIENT_ID: 'larder' };

describe('LARDER_OIDC_* and LARDER_PASSWORD_SIGN_IN settings', () => {
  it('is off without an issuer, password sign-in on', () => {
    const config = loadConfig({});
    expect(config.oidc).toBeNull();
    expect(config.passwordSignIn).toBe('on');
  });

  it('reads every setting, with the documented defaults', () => {
    const config = loadConfig({
      ...base,
      LARDER_OIDC_ISSUER: 'https://auth.example.org/application/o/larder/',
    });
    expect(config.oidc).toEqual({
      issuer: 'https://auth.example.org/application/o/larder/',
      clientId: 'larder',
      clientSecret: null,
      scopes: 'openid profile email',
      groupsClaim: 'groups',
      adminGroup: null,
      allowedGroup: null,
      autoCreate: false,
      appRedirectUris: [],
      label: 'auth.example.org',
    });
    const full = loadConfig({
      ...base,
      LARDER_OIDC_ISSUER: 'http://127.0.0.1:9000',
      LARDER_OIDC_APP_REDIRECT_URIS: 'larder://oidc, larder://other',
      LARDER_OIDC_AUTO_CREATE: 'true',
      LARDER_PASSWORD_SIGN_IN: 'admins',
    });
    expect(full.oidc?.appRedirectUris).toEqual(['larder://oidc', 'larder://other']);
    expect(full.oidc?.autoCreate).toBe(true);
    expect(full.passwordSignIn).toBe('admins');
  });

  it.each([
    [{ LARDER_OIDC_ISSUER: 'http://auth.example.org' }, 'LARDER_OIDC_ISSUER'],
    [{ LARDER_OIDC_ISSUER: 'http://192.168.1.5' }, 'LARDER_OIDC_ISSUER'],
    [{ LARDER_OIDC_ISSUER: 'not a url' }, 'LARDER_OIDC_ISSUER'],
    [
      { LARDER_OIDC_ISSUER: 'https://a.example', LARDER_OIDC_CLIENT_ID: '' },
      'LARDER_OIDC_CLIENT_ID',
    ],
    [
      {
        LARDER_OIDC_ISSUER: 'https://a.example',
        LARDER_OIDC_APP_REDIRECT_URIS: 'javascript:alert(1)',
      },
      'LARDER_OIDC_APP_REDIRECT_URIS',
    ],
    [
      { LARDER_OIDC_ISSUER: 'https://a.example', LARDER_OIDC_SCOPES: 'profile' },
      'LARDER_OIDC_SCOPES',
    ],
    [{ LARDER_PASSWORD_SIGN_IN: 'sometimes' }, 'LARDER_PASSWORD_SIGN_IN'],
  ])('refuses %o naming %s', (env, name) => {
    expect(() => loadConfig({ ...base, ...env })).toThrow(ConfigError);
    expect(() => loadConfig({ ...base, ...env })).toThrow(name);
  });
});
