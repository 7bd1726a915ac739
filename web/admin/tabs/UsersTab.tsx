import { api } from '../api/client.ts';
import type { InventoryView, User } from '../api/types.ts';
import { ErrorMessage, Loading } from '../components/ui.tsx';
import { useLoad } from '../hooks.ts';
import { CreateUserForm } from './CreateUserForm.tsx';
import { UserCard } from './UserCard.tsx';

/** Users: list, create, change password, delete, assign to an inventory, detach. */
export function UsersTab(props: { revision: number; onChanged: () => void; selfId: string }) {
  const data = useLoad(
    () =>
      Promise.all([
        api<User[]>('GET', '/api/admin/users'),
        api<InventoryView[]>('GET', '/api/admin/inventories'),
      ]),
    [props.revision],
  );
  const [users, inventories] = data.data ?? [[], []];
  const sorted = [...users].sort((a, b) => a.username.localeCompare(b.username));

  return (
    <div class="users">
      <CreateUserForm onCreated={props.onChanged} />
      <h2>
        Users <span class="count">({users.length})</span>
      </h2>
      <ErrorMessage message={data.error} />
      {data.loading && !data.data && <Loading />}
      <ul class="cards" aria-label="Users">
        {sorted.map((user) => (
          <UserCard
            key={user.id}
            user={user}
            inventories={inventories}
            isSelf={user.id === props.selfId}
            onChanged={props.onChanged}
          />
        ))}
      </ul>
    </div>
  );
}
