import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';

/** An error from the server, announced to screen readers. */
export function ErrorMessage({ message }: { message: string | null }) {
  if (!message) return null;
  return (
    <p class="error" role="alert">
      {message}
    </p>
  );
}

/** A submit or action button that shows it is working and cannot be pressed twice. */
export function BusyButton(props: {
  busy: boolean;
  label: string;
  busyLabel?: string;
  type?: 'button' | 'submit';
  class?: string;
  disabled?: boolean;
  onClick?: () => void;
}) {
  return (
    <button
      type={props.type ?? 'button'}
      class={props.class}
      disabled={props.busy || props.disabled}
      aria-busy={props.busy}
      onClick={props.onClick}
    >
      {props.busy ? (props.busyLabel ?? `${props.label}…`) : props.label}
    </button>
  );
}

/** Two-step destructive action: the first press asks, the second does it. */
export function ConfirmButton(props: {
  label: string;
  question: string;
  busy: boolean;
  onConfirm: () => void;
}) {
  const [asking, setAsking] = useState(false);
  if (!asking) {
    return (
      <button type="button" class="danger" onClick={() => setAsking(true)}>
        {props.label}
      </button>
    );
  }
  return (
    <span class="confirm" role="group" aria-label={props.question}>
      <span>{props.question}</span>
      <BusyButton
        class="danger"
        busy={props.busy}
        label={`Yes, ${props.label.toLowerCase()}`}
        onClick={props.onConfirm}
      />
      <button type="button" onClick={() => setAsking(false)} autoFocus>
        Cancel
      </button>
    </span>
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
      Loading…
    </p>
  );
}
