import type { Action } from '#web/admin/hooks.ts';
import { t } from '#web/admin/i18n.ts';
import { ErrorMessage } from '#web/shared/form.tsx';
import { BusyButton } from './ui.tsx';

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
