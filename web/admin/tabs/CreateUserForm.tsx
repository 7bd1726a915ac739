import { useState } from 'preact/hooks';
import { api } from '../api/client.ts';
import { BusyButton, ErrorMessage, Field } from '../components/ui.tsx';
import { useAction } from '../hooks.ts';

/** Creates a user; the server gives them a new inventory of their own. */
export function CreateUserForm({ onCreated }: { onCreated: () => void }) {
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [created, setCreated] = useState<string | null>(null);
  const action = useAction();

  const submit = async (event: Event) => {
    event.preventDefault();
    setCreated(null);
    const ok = await action.run(() => api('POST', '/api/admin/users', { username, password }));
    if (ok) {
      setCreated(username);
      setUsername('');
      setPassword('');
      onCreated();
    }
  };

  return (
    <form
      class="card create-user"
      onSubmit={(e) => void submit(e)}
      aria-labelledby="create-user-title"
    >
      <h2 id="create-user-title">Create a user</h2>
      <div class="row">
        <Field label="Username" id="new-username" hint="3–32 letters, digits, . _ -">
          <input
            id="new-username"
            required
            minLength={3}
            maxLength={32}
            pattern="[A-Za-z0-9._\-]+"
            autoComplete="off"
            aria-describedby="new-username-hint"
            value={username}
            onInput={(e) => setUsername(e.currentTarget.value)}
          />
        </Field>
        <Field label="Password" id="new-password" hint="at least 8 characters">
          <input
            id="new-password"
            type="password"
            required
            minLength={8}
            autoComplete="new-password"
            aria-describedby="new-password-hint"
            value={password}
            onInput={(e) => setPassword(e.currentTarget.value)}
          />
        </Field>
        <BusyButton
          type="submit"
          class="primary"
          busy={action.busy}
          label="Create user"
          busyLabel="Creating…"
        />
      </div>
      <ErrorMessage message={action.error} />
      {created && (
        <p class="success" role="status">
          User {created} created with an inventory of their own.
        </p>
      )}
    </form>
  );
}
