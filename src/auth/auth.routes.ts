import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Guards } from '../http/auth.js';
import { callerOf } from '../http/auth.js';
import { errors, refTo } from '../http/schemas.js';
import type { UsersService } from '../users/users.service.js';
import { LoginBody, LoginResponseSchema, RefreshBody } from './auth.schemas.js';
import type { AuthService } from './auth.service.js';

export function authRoutes(deps: {
  auth: AuthService;
  users: UsersService;
  guards: Guards;
}): FastifyPluginAsyncTypebox {
  const { auth, users, guards } = deps;
  return async (app) => {
    app.addSchema(LoginResponseSchema);
    const LoginResponse = refTo(LoginResponseSchema);

    app.post(
      '/api/auth/login',
      {
        schema: {
          tags: ['auth'],
          summary: 'Sign in (public). Failed attempts are rate limited per username and address.',
          body: LoginBody,
          response: { 200: LoginResponse, ...errors(400, 401, 429) },
        },
      },
      (request) => auth.login(request.body.username, request.body.password, request.ip),
    );

    app.post(
      '/api/auth/refresh',
      {
        schema: {
          tags: ['auth'],
          summary:
            'Exchange a refresh token for new tokens (public; the old refresh token stops working)',
          body: RefreshBody,
          response: { 200: LoginResponse, ...errors(400, 401) },
        },
      },
      (request) => auth.refresh(request.body.refreshToken),
    );

    app.post(
      '/api/auth/logout',
      {
        schema: {
          tags: ['auth'],
          summary: 'End the session of a refresh token (public; unknown tokens are ignored)',
          body: RefreshBody,
          response: { 204: Type.Null(), ...errors(400) },
        },
      },
      async (request, reply) => {
        await auth.logout(request.body.refreshToken);
        return reply.status(204).send(null);
      },
    );

    app.get(
      '/api/auth/me',
      {
        onRequest: guards.authenticate,
        schema: {
          tags: ['auth'],
          summary: 'The signed-in user (any user)',
          security: [{ bearer: [] }],
          response: { 200: Type.Ref('User'), ...errors(401) },
        },
      },
      (request) => users.get(callerOf(request).id),
    );
  };
}
