import { useState } from 'preact/hooks';
import { api } from '../api/client.ts';
import type { User } from '../api/types.ts';
import { BusyButton, ErrorMessage, Field } from '../components/ui.tsx';
import { useAction } from '../hooks.ts';

/** Sets a new password; the user's existing sessions end at once. */
export function PasswordForm(props: { user: User; onDone: () => void; onChanged: () => void }) {
  const [password, setPassword] = useState('');
  const action = useAction();
  const id = `password-${props.user.id}`;

  const submit = async (event: Event) => {
    event.preventDefault();
    const ok = await action.run(() =>
      api('PUT', `/api/admin/users/${props.user.id}`, { password }),
    );
    if (ok) {
      props.onChanged();
      props.onDone();
    }
  };

  return (
    <form class="inline-form" onSubmit={(e) => void submit(e)}>
      <Field
        label={`New password for ${props.user.username}`}
        id={id}
        hint="Their devices will have to sign in again."
      >
        <input
          id={id}
          type="password"
          required
          minLength={8}
          autoComplete="new-password"
          autoFocus
          value={password}
          onInput={(e) => setPassword(e.currentTarget.value)}
        />
      </Field>
      <BusyButton
        type="submit"
        class="primary"
        busy={action.busy}
        label="Save password"
        busyLabel="Saving…"
      />
      <button type="button" onClick={props.onDone}>
        Cancel
      </button>
      <ErrorMessage message={action.error} />
    </form>
  );
}
