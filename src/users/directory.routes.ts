import { Type } from '@fastify/type-provider-typebox';
import type { Guards } from '#src/http/auth.js';
import { callerOf } from '#src/http/auth.js';
import { documented, type Routes } from '#src/http/route-docs.js';
import type { UsersService } from './users.service.js';

const DirectoryEntry = Type.Object({
  id: Type.String(),
  username: Type.String(),
  isOnline: Type.Boolean({ description: 'has a live socket on any server instance' }),
});

/** GET /api/users: whom a signed-in user can message. */
export const directoryRoutes: Routes<{
  users: UsersService;
  guards: Guards;
  isOnline: (userId: string) => boolean;
}> =
  ({ users, guards, isOnline }) =>
  async (app) => {
    app.get(
      '/api/users',
      documented('messages', { onRequest: guards.authenticate, errors: [401] })(
        'Every user except the caller, by username (any signed-in user)',
        { response: { 200: Type.Array(DirectoryEntry) } },
      ),
      async (request) => {
        const callerId = callerOf(request).id;
        return (await users.list())
          .filter((user) => user.id !== callerId)
          .map((user) => ({ id: user.id, username: user.username, isOnline: isOnline(user.id) }))
          .sort((a, b) => a.username.localeCompare(b.username, 'en', { sensitivity: 'base' }));
      },
    );
  };
