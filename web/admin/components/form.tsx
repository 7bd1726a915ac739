import type { JSX } from 'preact';
import type { Action } from '#web/admin/hooks.ts';
import { t } from '#web/admin/i18n.ts';
import { BusyButton, ErrorMessage } from './ui.tsx';

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

/** A form's primary submit button: shows that `action` is working, cannot be pressed twice. */
export function Submit(props: { action: Action; label: string; busyLabel: string }) {
  return (
    <BusyButton
      type="submit"
      class="primary"
      busy={props.action.busy}
      label={props.label}
      busyLabel={props.busyLabel}
    />
  );
}

/** A button that leaves a form without sending it. */
export function CancelButton(props: { label: string; onClick: () => void }) {
  return (
    <button type="button" onClick={props.onClick}>
      {props.label}
    </button>
  );
}

/**
 * The foot of an edit form: the action's error, then submit and cancel side by side, labelled
 * "Save", "Saving…" and "Cancel" unless told otherwise.
 */
export function FormActions(props: {
  action: Action;
  submit?: string;
  busyLabel?: string;
  cancel?: string;
  onCancel: () => void;
}) {
  return (
    <>
      <ErrorMessage message={props.action.error} />
      <div class="actions">
        <Submit
          action={props.action}
          label={props.submit ?? t('common.save')}
          busyLabel={props.busyLabel ?? t('common.saving')}
        />
        <CancelButton label={props.cancel ?? t('common.cancel')} onClick={props.onCancel} />
      </div>
    </>
  );
}
