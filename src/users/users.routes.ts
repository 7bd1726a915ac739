import { Type } from '@fastify/type-provider-typebox';
import type { Guards } from '#src/http/auth.js';
import { callerOf } from '#src/http/auth.js';
import { errors, IdParams } from '#src/http/schemas.js';
import { documented, noContent, type Routes } from '#src/http/route-docs.js';
import { NewPasswordSchema, UsernameSchema } from './users.rules.js';
import type { UsersService } from './users.service.js';

const UserCredentials = Type.Object(
  { username: UsernameSchema, password: NewPasswordSchema },
  { additionalProperties: false },
);

const UserChange = Type.Object(
  {
    password: Type.Optional(NewPasswordSchema),
    isAdmin: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false, minProperties: 1 },
);

const InventoryAssignment = Type.Object(
  { inventoryId: Type.String({ format: 'uuid' }) },
  { additionalProperties: false },
);

/** /api/admin/users, including which inventory a user belongs to: admins only. */
export const adminUserRoutes: Routes<{ users: UsersService; guards: Guards }> =
  ({ users, guards }) =>
  async (app) => {
    guards.guardRoutes(app, guards.requireAdmin);
    const doc = documented('admin: users', { errors: [401, 403] });

    app.get(
      '/api/admin/users',
      doc('Admin: list every user', { response: { 200: Type.Array(Type.Ref('User')) } }),
      () => users.list(),
    );

    app.post(
      '/api/admin/users',
      doc('Admin: create a user with a new inventory of their own', {
        body: UserCredentials,
        response: { 201: Type.Ref('User'), ...errors(400, 409) },
      }),
      async (request, reply) => reply.status(201).send(await users.create(request.body)),
    );

    app.put(
      '/api/admin/users/:id',
      doc(
        "Admin: change a user's password (their existing sessions end at once) or grant and " +
          'revoke the admin role (at once, for every token of theirs); nobody changes their ' +
          'own role, and the last admin stays one (409)',
        {
          params: IdParams,
          body: UserChange,
          response: { 200: Type.Ref('User'), ...errors(400, 404, 409) },
        },
      ),
      (request) => users.update(request.params.id, request.body, callerOf(request).id),
    );

    app.delete(
      '/api/admin/users/:id',
      doc('Admin: delete a user, their messages, and their inventory if nobody else shares it', {
        params: IdParams,
        response: { 204: Type.Null(), ...errors(400, 404, 409) },
      }),
      async (request, reply) =>
        noContent(reply, users.delete(request.params.id, callerOf(request).id)),
    );

    // membership is documented with the inventories; it is a change of the user row
    const membership = documented('admin: inventories', { errors: [401, 403] });

    app.put(
      '/api/admin/users/:id/inventory',
      membership(
        'Admin: assign a user to an existing inventory; an inventory left empty is removed',
        {
          params: IdParams,
          body: InventoryAssignment,
          response: { 200: Type.Ref('User'), ...errors(400, 404) },
        },
      ),
      (request) => users.assignInventory(request.params.id, request.body.inventoryId),
    );

    app.post(
      '/api/admin/users/:id/inventory/new',
      membership('Admin: detach a user into a new, empty inventory', {
        params: IdParams,
        response: { 200: Type.Ref('User'), ...errors(400, 404) },
      }),
      (request) => users.detachInventory(request.params.id),
    );
  };
