import type { JSX } from 'preact';

/** Props that tie an input to a piece of state: its value, and the setter it calls as one types. */
export function bindText(value: string, set: (value: string) => void) {
  return {
    value,
    onInput: (e: JSX.TargetedInputEvent<HTMLInputElement>) => set(e.currentTarget.value),
  };
}

/**
 * Props of a password input: for the one the account has now, or for a new one, which the browser
 * checks is at least 8 characters long before sending (the server asks for 8 to 72 bytes).
 */
export function passwordInput(kind: 'current' | 'new', value: string, set: (v: string) => void) {
  const rule = kind === 'new' ? { minLength: 8 } : {};
  return {
    type: 'password',
    required: true,
    ...rule,
    autoComplete: `${kind}-password`,
    ...bindText(value, set),
  };
}

/** An error from the server (or a form's check), announced to screen readers. */
export function ErrorMessage({ message }: { message: string | null | undefined }) {
  if (!message) return null;
  return (
    <p class="error" role="alert">
      {message}
    </p>
  );
}
