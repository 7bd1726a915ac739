import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { Guards } from '#src/http/auth.js';
import { callerOf } from '#src/http/auth.js';
import { errors, IdParams, refTo } from '#src/http/schemas.js';
import { docs, documented, noContent } from '#src/http/route-docs.js';
import type { UsersService } from '#src/users/users.service.js';
import {
  ChangePasswordBody,
  LoginBody,
  LoginResponseSchema,
  RefreshBody,
  SessionSchema,
} from './auth.schemas.js';
import type { AuthService, ClientInfo } from './auth.service.js';

const clientOf = (request: FastifyRequest): ClientInfo => ({
  address: request.ip,
  userAgent: request.headers['user-agent'] ?? null,
});

export function authRoutes(deps: {
  auth: AuthService;
  users: UsersService;
  guards: Guards;
  /** routes that answer with the same LoginResponse (sign-in through the identity provider) */
  signInRoutes?: FastifyPluginAsyncTypebox;
}): FastifyPluginAsyncTypebox {
  const { auth, users, guards } = deps;
  return async (app) => {
    app.addSchema(LoginResponseSchema);
    app.addSchema(SessionSchema);
    const LoginResponse = refTo(LoginResponseSchema);
    const signedIn = documented('auth', { onRequest: guards.authenticate, errors: [401] });
    if (deps.signInRoutes) await app.register(deps.signInRoutes);

    app.post(
      '/api/auth/login',
      {
        schema: {
          tags: ['auth'],
          summary:
            'Sign in (public); starts a session. Failed attempts are throttled per username and address.',
          body: LoginBody,
          response: { 200: LoginResponse, ...errors(400, 401, 403, 429) },
        },
      },
      (request) => auth.login(request.body.username, request.body.password, clientOf(request)),
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
      (request) => auth.refresh(request.body.refreshToken, clientOf(request)),
    );

    app.post(
      '/api/auth/logout',
      {
        schema: {
          tags: ['auth'],
          summary:
            'End the session of a refresh token: its access tokens and sockets stop at once (public; unknown tokens are ignored)',
          body: RefreshBody,
          response: { 204: Type.Null(), ...errors(400) },
        },
      },
      async (request, reply) => noContent(reply, auth.logout(request.body.refreshToken)),
    );

    app.get(
      '/api/auth/me',
      signedIn('The signed-in user (any user)', {
        response: { 200: Type.Ref('User'), ...errors(404) },
      }),
      (request) => users.get(callerOf(request).id),
    );

    app.post(
      '/api/auth/password',
      signedIn(
        'Change your own password (any user). Every other session ends; this one gets new tokens. A wrong current password is 400 and counts as a failed sign-in.',
        { body: ChangePasswordBody, response: { 200: LoginResponse, ...errors(400, 429) } },
      ),
      (request) =>
        auth.changeOwnPassword(
          callerOf(request),
          request.body.currentPassword,
          request.body.newPassword,
          clientOf(request),
        ),
    );

    app.get(
      '/api/auth/sessions',
      signedIn('Your signed-in devices, most recently used first (any user)', {
        response: { 200: Type.Array(Type.Ref('Session')) },
      }),
      (request) => auth.listSessions(callerOf(request)),
    );

    app.delete(
      '/api/auth/sessions/:id',
      signedIn(
        'Sign one of your sessions out at once, sockets included (any user; 404 for a session not yours)',
        { params: IdParams, response: { 204: Type.Null(), ...errors(400, 404) } },
      ),
      async (request, reply) =>
        noContent(reply, auth.endOwnSession(callerOf(request), request.params.id)),
    );

    app.delete(
      '/api/admin/users/:id/login-throttle',
      {
        onRequest: guards.requireAdmin,
        schema: {
          ...docs('admin: users'),
          summary: "Admin: clear a user's failed sign-in counters (every address)",
          params: IdParams,
          response: { 204: Type.Null(), ...errors(400, 401, 403, 404) },
        },
      },
      async (request, reply) => noContent(reply, auth.unlock(request.params.id)),
    );
  };
}
