import { useState } from 'preact/hooks';
import { api } from '../api/client.ts';
import type { InventoryView, User } from '../api/types.ts';
import { BusyButton, ConfirmButton, ErrorMessage } from '../components/ui.tsx';
import { formatDate, inventoryLabel } from '../format.ts';
import { useAction } from '../hooks.ts';
import { PasswordForm } from './PasswordForm.tsx';

/** One user with their actions. */
export function UserCard(props: {
  user: User;
  inventories: InventoryView[];
  isSelf: boolean;
  onChanged: () => void;
}) {
  const { user, inventories } = props;
  const action = useAction();
  const [target, setTarget] = useState('');
  const [changingPassword, setChangingPassword] = useState(false);
  const current = inventories.find((i) => i.inventoryId === user.inventoryId);
  const others = inventories.filter((i) => i.inventoryId !== user.inventoryId);
  const id = user.id;

  const act = async (work: () => Promise<unknown>) => {
    if (await action.run(work)) {
      setTarget('');
      props.onChanged();
    }
  };

  return (
    <li class="card user" data-username={user.username}>
      <div class="card-head">
        <h3>{user.username}</h3>
        {user.isAdmin && <span class="badge">admin</span>}
        {props.isSelf && <span class="badge muted">you</span>}
      </div>
      <dl class="facts">
        <dt>Created</dt>
        <dd>{formatDate(user.createdAt)}</dd>
        <dt>Inventory</dt>
        <dd class="inventory">
          {inventoryLabel(user.inventoryId, current?.name)}
          {current && current.users.length > 1 && ` (shared by ${current.users.length})`}
        </dd>
      </dl>
      <div class="assign">
        <label for={`assign-${id}`} class="inline-label">
          Assign to
        </label>
        <select
          id={`assign-${id}`}
          value={target}
          onChange={(e) => setTarget(e.currentTarget.value)}
        >
          <option value="">choose an inventory…</option>
          {others.map((inv) => (
            <option value={inv.inventoryId} key={inv.inventoryId}>
              {inventoryLabel(inv.inventoryId, inv.name)} —{' '}
              {inv.users.map((u) => u.username).join(', ') || 'no users'}
            </option>
          ))}
        </select>
        <BusyButton
          busy={action.busy}
          disabled={!target}
          label="Assign"
          onClick={() =>
            void act(() => api('PUT', `/api/admin/users/${id}/inventory`, { inventoryId: target }))
          }
        />
      </div>
      <div class="actions">
        <BusyButton
          busy={action.busy}
          label="Detach into a new inventory"
          onClick={() => void act(() => api('POST', `/api/admin/users/${id}/inventory/new`))}
        />
        <button
          type="button"
          aria-expanded={changingPassword}
          onClick={() => setChangingPassword(!changingPassword)}
        >
          Change password
        </button>
        {!props.isSelf && (
          <ConfirmButton
            label="Delete"
            question={`Delete ${user.username} and their messages?`}
            busy={action.busy}
            onConfirm={() => void act(() => api('DELETE', `/api/admin/users/${id}`))}
          />
        )}
      </div>
      {changingPassword && (
        <PasswordForm
          user={user}
          onDone={() => setChangingPassword(false)}
          onChanged={props.onChanged}
        />
      )}
      <ErrorMessage message={action.error} />
    </li>
  );
}
