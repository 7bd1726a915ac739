import type { ComponentChildren, JSX } from 'preact';
import { useState } from 'preact/hooks';
import { t } from '#web/app/i18n.ts';
import { bindText } from '#web/shared/form.tsx';

/** A label above its input, tied to it by the input's id. */
export function LabelledInput(
  props: { id: string; label: string } & JSX.InputHTMLAttributes<HTMLInputElement>,
) {
  const { label, ...input } = props;
  return (
    <>
      <label for={input.id}>{label}</label>
      <input {...input} />
    </>
  );
}

/** The search field of a list screen. */
export function SearchField(props: { id: string; value: string; set: (value: string) => void }) {
  return (
    <div class="field">
      <LabelledInput
        id={props.id}
        label={t('household.search')}
        type="search"
        {...bindText(props.value, props.set)}
      />
    </div>
  );
}

/** A checkbox with its text beside it. */
export function Check(props: {
  checked: boolean;
  onChange: (checked: boolean) => void;
  children: ComponentChildren;
}) {
  return (
    <label class="check">
      <input
        type="checkbox"
        checked={props.checked}
        onChange={(e) => props.onChange(e.currentTarget.checked)}
      />
      {props.children}
    </label>
  );
}

/**
 * A one-line form that adds an entry by its name: a blank name is not sent, and the field is
 * cleared once `add` (given the trimmed name) says it worked.
 */
export function AddByName(props: {
  id: string;
  label: string;
  maxLength?: number;
  disabled?: boolean;
  add: (name: string) => Promise<boolean>;
}) {
  const [name, setName] = useState('');
  const submit = (event: Event) => {
    event.preventDefault();
    if (!name.trim()) return;
    void props.add(name.trim()).then((ok) => {
      if (ok) setName('');
    });
  };
  return (
    <form class="inline" onSubmit={submit}>
      <LabelledInput
        id={props.id}
        label={props.label}
        maxLength={props.maxLength}
        {...bindText(name, setName)}
      />
      <button type="submit" disabled={props.disabled}>
        {t('household.add')}
      </button>
    </form>
  );
}
