import { Type } from '@fastify/type-provider-typebox';
import { Nullable } from '#src/http/schemas.js';

export const OidcInfo = Type.Object({
  enabled: Type.Boolean({ description: 'sign-in through the identity provider is set up' }),
  label: Nullable(Type.String({ description: 'button text: "Sign in with <label>"' })),
  passwordSignIn: Type.Union([Type.Literal('on'), Type.Literal('admins'), Type.Literal('off')], {
    description: 'who may sign in with a password (LARDER_PASSWORD_SIGN_IN)',
  }),
});

export const StartQuery = Type.Object({
  page: Type.Optional(
    Type.Union([Type.Literal('admin'), Type.Literal('app')], {
      description:
        'web: where the browser lands afterwards, /admin/ (default) or the household app /app/',
    }),
  ),
  redirect_uri: Type.Optional(
    Type.String({ maxLength: 2048, description: 'app: one of LARDER_OIDC_APP_REDIRECT_URIS' }),
  ),
  code_challenge: Type.Optional(
    Type.String({
      pattern: '^[A-Za-z0-9_-]{43}$',
      description: "app: base64url SHA-256 of the app's code verifier",
    }),
  ),
  code_challenge_method: Type.Optional(Type.Literal('S256')),
});

export const CallbackQuery = Type.Object(
  {
    state: Type.Optional(Type.String()),
    code: Type.Optional(Type.String()),
    error: Type.Optional(Type.String()),
  },
  { additionalProperties: true },
);

export const ExchangeBody = Type.Object(
  {
    code: Type.String({ minLength: 1, maxLength: 200 }),
    codeVerifier: Type.Optional(
      Type.String({
        pattern: '^[A-Za-z0-9._~-]{43,128}$',
        description: 'app: the PKCE verifier whose challenge started the sign-in',
      }),
    ),
  },
  { additionalProperties: false },
);

export const LinkBody = Type.Object(
  {
    redirectUri: Type.Optional(
      Type.String({
        maxLength: 2048,
        description: 'app: one of LARDER_OIDC_APP_REDIRECT_URIS, to land on with ?linked=1',
      }),
    ),
  },
  { additionalProperties: false },
);

export const LinkResponse = Type.Object({
  url: Type.String({ description: "the provider's sign-in page to open" }),
});
