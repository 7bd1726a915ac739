import { Type, type Static } from '@fastify/type-provider-typebox';
import { Nullable } from '#src/http/schemas.js';
import { NewPasswordSchema } from '#src/users/users.rules.js';

/** What sign-in and refresh answer: the token pair and who it belongs to. */
export const LoginResponseSchema = Type.Object(
  {
    accessToken: Type.String(),
    refreshToken: Type.String(),
    tokenType: Type.Literal('Bearer'),
    expiresIn: Type.Integer({ description: 'access token lifetime in seconds' }),
    userId: Type.String(),
    username: Type.String(),
    isAdmin: Type.Boolean(),
    inventoryId: Nullable(Type.String()),
  },
  { $id: 'LoginResponse' },
);
export type LoginResponse = Static<typeof LoginResponseSchema>;

export const LoginBody = Type.Object(
  {
    username: Type.String({ minLength: 1, maxLength: 64 }),
    password: Type.String({ minLength: 1, maxLength: 1024 }),
  },
  { additionalProperties: false },
);

export const RefreshBody = Type.Object(
  { refreshToken: Type.String({ minLength: 1, maxLength: 200 }) },
  { additionalProperties: false },
);

export const ChangePasswordBody = Type.Object(
  {
    currentPassword: Type.String({ minLength: 1, maxLength: 1024 }),
    newPassword: NewPasswordSchema,
  },
  { additionalProperties: false },
);

/** One signed-in device of the caller. */
export const SessionSchema = Type.Object(
  {
    id: Type.String(),
    createdAt: Type.Integer({ description: 'sign-in time, epoch milliseconds' }),
    lastUsedAt: Type.Integer({
      description: 'last refresh or request (written at most once a minute), epoch milliseconds',
    }),
    userAgent: Nullable(Type.String()),
    address: Nullable(Type.String({ description: 'client address at sign-in or last refresh' })),
    current: Type.Boolean({ description: 'true for the session of the calling access token' }),
  },
  { $id: 'Session' },
);
export type SessionDto = Static<typeof SessionSchema>;
