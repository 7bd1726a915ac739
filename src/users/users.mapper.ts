import { Type, type Static } from '@fastify/type-provider-typebox';
import { Nullable } from '#src/http/schemas.js';
import type { UserRow } from './users.repository.js';

export const UserSchema = Type.Object(
  {
    id: Type.String(),
    username: Type.String(),
    createdAt: Type.Integer({ description: 'epoch milliseconds' }),
    isAdmin: Type.Boolean(),
    inventoryId: Nullable(Type.String()),
    oidcLinked: Type.Optional(
      Type.Boolean({
        description:
          'signs in through the identity provider (in GET /api/admin/users and GET /api/auth/me)',
      }),
    ),
  },
  { $id: 'User' },
);
export type User = Static<typeof UserSchema>;

/** A user with the token version their access tokens must carry (src/auth checks it). */
export interface Account extends User {
  tokenVersion: number;
}

/** The columns of a user row the mappers read (a socket's connect reads only these). */
type AccountRow = Pick<
  UserRow,
  'id' | 'username' | 'created_at' | 'is_admin' | 'inventory_id' | 'token_version'
>;

export function toUser(row: AccountRow): User {
  return {
    id: row.id,
    username: row.username,
    createdAt: Number(row.created_at),
    isAdmin: Boolean(row.is_admin),
    inventoryId: row.inventory_id,
  };
}

export function toAccount(row: AccountRow): Account {
  return { ...toUser(row), tokenVersion: Number(row.token_version) };
}
