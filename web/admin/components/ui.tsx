import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { t } from '#web/admin/i18n.ts';

/** A submit or action button that shows it is working and cannot be pressed twice. */
export function BusyButton(props: {
  busy: boolean;
  label: string;
  busyLabel?: string;
  type?: 'button' | 'submit';
  class?: string;
  disabled?: boolean;
  /** the accessible name, when the label alone does not say what it acts on */
  ariaLabel?: string;
  onClick?: () => void;
}) {
  return (
    <button
      type={props.type ?? 'button'}
      class={props.class}
      aria-label={props.ariaLabel}
      disabled={props.busy || props.disabled}
      aria-busy={props.busy}
      onClick={props.onClick}
    >
      {props.busy ? (props.busyLabel ?? `${props.label}…`) : props.label}
    </button>
  );
}

/**
 * Two-step destructive action: the first press asks (the question says what will be lost), the
 * second does it. With `ask: false` the first press acts at once (nothing is lost).
 */
export function ConfirmButton(props: {
  label: string;
  question: string;
  confirmLabel?: string;
  busy: boolean;
  disabled?: boolean;
  ask?: boolean;
  class?: string;
  onConfirm: () => void;
}) {
  const [asking, setAsking] = useState(false);
  if (!asking) {
    return (
      <BusyButton
        class={props.class ?? 'danger'}
        busy={props.busy}
        disabled={props.disabled}
        label={props.label}
        onClick={() => (props.ask === false ? props.onConfirm() : setAsking(true))}
      />
    );
  }
  return (
    <div class="confirm" role="group" aria-label={props.question}>
      <p class="confirm-question">{props.question}</p>
      <BusyButton
        class="danger"
        busy={props.busy}
        label={props.confirmLabel ?? t('common.yes', { action: props.label.toLowerCase() })}
        onClick={() => {
          props.onConfirm();
          setAsking(false);
        }}
      />
      <button type="button" onClick={() => setAsking(false)} autoFocus>
        {t('common.cancel')}
      </button>
    </div>
  );
}

export function Field(props: {
  label: string;
  id: string;
  hint?: string;
  children: ComponentChildren;
}) {
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      {props.children}
      {props.hint && <small id={`${props.id}-hint`}>{props.hint}</small>}
    </div>
  );
}

export function ProgressBar({ value, label }: { value: number; label: string }) {
  return (
    <div class="progress">
      <progress max={100} value={Math.round(value * 100)} aria-label={label} />
      <span>{Math.round(value * 100)} %</span>
    </div>
  );
}

export function Loading() {
  return (
    <p class="muted" role="status">
      {t('common.loading')}
    </p>
  );
}

/** A button that shows or hides what follows it; its label says which it will do. */
export function Unfold(props: {
  class: string;
  show: string;
  hide: string;
  children: ComponentChildren;
}) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button type="button" class={props.class} aria-expanded={open} onClick={() => setOpen(!open)}>
        {open ? props.hide : props.show}
      </button>
      {open && props.children}
    </>
  );
}

/** A line of a list: its key, and what it shows. */
export type Entry = readonly [key: string, content: ComponentChildren];

/** A list whose only line says `none` when it is empty. */
export function ListOrNone(props: { class: string; none: string; entries: Entry[] }) {
  return (
    <ul class={props.class}>
      {props.entries.length === 0 && <li class="muted">{props.none}</li>}
      {props.entries.map(([key, content]) => (
        <li key={key}>{content}</li>
      ))}
    </ul>
  );
}

/** A table's head: one row of column headers. */
export function TableHead(props: { columns: string[] }) {
  return (
    <thead>
      <tr>
        {props.columns.map((column) => (
          <th key={column} scope="col">
            {column}
          </th>
        ))}
      </tr>
    </thead>
  );
}
