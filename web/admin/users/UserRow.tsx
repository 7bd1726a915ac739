import { useState } from 'preact/hooks';
import type { InventoryStats, InventoryView, User } from '#web/admin/api/types.ts';
import { BusyButton, ConfirmButton } from '#web/admin/components/ui.tsx';
import { useFeedback } from '#web/admin/feedback.ts';
import { formatDate, inventoryLabel } from '#web/admin/format.ts';
import { useAction } from '#web/admin/hooks.ts';
import { t } from '#web/admin/i18n.ts';
import { ErrorMessage } from '#web/shared/form.tsx';
import { PasswordForm } from './PasswordForm.tsx';
import { assignInventory, deleteUser, detach, setAdmin } from './users.api.ts';

const label = (inv: InventoryView) => inventoryLabel(inv.inventoryId, inv.name, inv.users);

/** An inventory in the Assign list: its label, and its members when the label is a name. */
function optionText(inv: InventoryView): string {
  const members = inv.users.map((u) => u.username).join(', ');
  if (inv.name.trim()) return `${inv.name} — ${members || t('inventory.nobody')}`;
  return inv.users.length ? label(inv) : `${label(inv)} — ${t('inventory.nobody')}`;
}

/** One user in the list; the actions open below it. */
export function UserRow(props: {
  user: User;
  inventories: InventoryView[];
  stats: InventoryStats[];
  isSelf: boolean;
}) {
  const { user, inventories } = props;
  const feedback = useFeedback();
  const action = useAction();
  const [open, setOpen] = useState(false);
  const [target, setTarget] = useState('');
  const [changingPassword, setChangingPassword] = useState(false);
  const current = inventories.find((i) => i.inventoryId === user.inventoryId);
  const others = inventories.filter((i) => i.inventoryId !== user.inventoryId);
  const alone = current !== undefined && current.users.length === 1;
  const items = props.stats.find((s) => s.inventoryId === user.inventoryId)?.totalItems ?? 0;
  const targetInventory = others.find((i) => i.inventoryId === target);
  const id = user.id;
  const name = user.username;

  const act = async (work: () => Promise<unknown>, message: string) => {
    if (await action.run(work)) {
      setTarget('');
      feedback.changed(message);
    }
  };
  const losing = current
    ? t('users.inventoryDeleted', { inventory: label(current), count: items })
    : '';

  return (
    <li class="row user" data-username={name}>
      <div class="row-head">
        <strong class="name">{name}</strong>
        {user.isAdmin && <span class="badge">{t('users.admin')}</span>}
        {user.oidcLinked && (
          <span class="badge muted oidc" title={t('users.oidcTitle')}>
            {t('users.oidc')}
          </span>
        )}
        {props.isSelf && <span class="badge muted">{t('users.you')}</span>}
        <span class="muted inventory">
          {current ? label(current) : t('inventory.none')}
          {current &&
            current.users.length > 1 &&
            ` · ${t('users.sharedBy', { count: current.users.length })}`}
        </span>
        <span class="muted created">
          {t('users.created', { date: formatDate(user.createdAt) })}
        </span>
        <button
          type="button"
          class="manage"
          aria-expanded={open}
          aria-label={t('users.manageUser', { name })}
          onClick={() => setOpen(!open)}
        >
          {t('users.manage')}
        </button>
      </div>
      {open && (
        <div class="row-body">
          <div class="assign">
            <label for={`assign-${id}`}>{t('users.assignTo')}</label>
            <select
              id={`assign-${id}`}
              value={target}
              onChange={(e) => setTarget(e.currentTarget.value)}
            >
              <option value="">{t('users.chooseInventory')}</option>
              {others.map((inv) => (
                <option value={inv.inventoryId} key={inv.inventoryId}>
                  {optionText(inv)}
                </option>
              ))}
            </select>
            <ConfirmButton
              class=""
              label={t('users.assign')}
              busy={action.busy}
              disabled={!target}
              ask={alone}
              question={t('users.assignQuestion', { name, lost: losing })}
              confirmLabel={t('users.assignConfirm')}
              onConfirm={() =>
                void act(
                  () => assignInventory(id, target),
                  t('users.assigned', {
                    name,
                    inventory: targetInventory ? label(targetInventory) : '',
                  }),
                )
              }
            />
          </div>
          <div class="actions">
            {current && current.users.length > 1 && (
              <BusyButton
                busy={action.busy}
                label={t('users.detach')}
                onClick={() => void act(() => detach(id), t('users.detached', { name }))}
              />
            )}
            <button
              type="button"
              aria-expanded={changingPassword}
              onClick={() => setChangingPassword(!changingPassword)}
            >
              {t('users.changePassword')}
            </button>
            {!props.isSelf && !user.isAdmin && (
              <BusyButton
                busy={action.busy}
                label={t('users.makeAdmin')}
                onClick={() => void act(() => setAdmin(id, true), t('users.madeAdmin', { name }))}
              />
            )}
            {!props.isSelf && user.isAdmin && (
              <ConfirmButton
                label={t('users.revokeAdmin')}
                question={t('users.revokeAdminQuestion', { name })}
                confirmLabel={t('users.revokeAdminConfirm')}
                busy={action.busy}
                onConfirm={() =>
                  void act(() => setAdmin(id, false), t('users.adminRevoked', { name }))
                }
              />
            )}
            {!props.isSelf && (
              <ConfirmButton
                label={t('users.delete')}
                question={
                  alone
                    ? t('users.deleteQuestionAlone', { name, lost: losing })
                    : t('users.deleteQuestion', { name })
                }
                confirmLabel={t('users.deleteConfirm')}
                busy={action.busy}
                onConfirm={() => void act(() => deleteUser(id), t('users.deleted', { name }))}
              />
            )}
          </div>
          {changingPassword && (
            <PasswordForm user={user} onDone={() => setChangingPassword(false)} />
          )}
          <ErrorMessage message={action.error} />
        </div>
      )}
    </li>
  );
}
