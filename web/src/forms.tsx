// What every form shares: a labelled input with its message, the form's own message and buttons,
// and one submit (local checks, then the request, then the API's field errors).
import { createContext, useCallback, useContext, useEffect, useRef, useState, type InputHTMLAttributes, type ReactNode } from 'react';
import { ApiError } from './api.ts';
import { UNSAVED_TEXT } from './drafts.ts';
import { focusSoon } from './focus.ts';
import { CancelButton } from './ui.tsx';

/**
 * A field's message, the field's description (aria-describedby). A refused submit moves focus to
 * the first field with a message, which reads it out; inside the field's label it is hidden from
 * the label's text, else it became part of the field's name ("URL Enter the https URL…").
 */
export function FieldMessage({ id, text, inLabel = false }: { id: string; text?: string; inLabel?: boolean }) {
  return (
    <span id={id} className="field-error" aria-hidden={inLabel || undefined}>
      {text ?? ''}
    </span>
  );
}

type TextInput = Omit<InputHTMLAttributes<HTMLInputElement>, 'name' | 'value' | 'onChange'>;

/** A text input inside its label, with the field's message (`<name>-error`) under it. */
export function TextField({
  label,
  name,
  value,
  error,
  onChange,
  className,
  ...input
}: TextInput & { label: string; name: string; value: string; error?: string; onChange: (value: string) => void }) {
  return (
    <label className={className}>
      {label}
      <input {...input} name={name} value={value} aria-invalid={!!error} aria-describedby={`${name}-error`} onChange={(e) => onChange(e.target.value)} />
      <FieldMessage id={`${name}-error`} text={error} inLabel />
    </label>
  );
}

/**
 * The message of the checkbox group around: while it says something, each of the group's checkboxes
 * is invalid and described by it, as a text field is by its message (it was only the group's
 * description: the checkboxes themselves said nothing of it).
 */
const GroupMessage = createContext<{ id: string; text?: string }>({ id: '' });

/** A group of checkboxes whose message (`id`, `text`) describes each checkbox while it says something. */
export function CheckboxGroupMessage({ id, text, children }: { id: string; text?: string; children: ReactNode }) {
  return (
    <GroupMessage value={{ id, text }}>
      {children}
      <FieldMessage id={id} text={text} />
    </GroupMessage>
  );
}

/** A checkbox of a group: `aria-invalid` and described by the group's message while it has one. */
export function GroupCheckbox(props: Omit<InputHTMLAttributes<HTMLInputElement>, 'type'>) {
  const { id, text } = useContext(GroupMessage);
  return <input {...props} type="checkbox" aria-invalid={text ? true : undefined} aria-describedby={text ? id : undefined} />;
}

/**
 * A group of checkboxes (GroupCheckbox): its legend with a button that ticks the warehouse preset,
 * help, and the group's message. The message describes the checkboxes, not the group: said by the
 * group too, it was read twice on the way into it.
 */
export function PresetCheckboxes({
  legend,
  name,
  help,
  onPreset,
  error,
  children,
}: {
  legend: string;
  name: string;
  help?: ReactNode;
  onPreset: () => void;
  error?: string;
  children: ReactNode;
}) {
  return (
    <fieldset className="field" aria-describedby={help ? `${name}-help` : undefined}>
      <legend>
        {legend}{' '}
        <button type="button" className="small" onClick={onPreset}>
          Warehouse preset
        </button>
      </legend>
      {help && (
        <p id={`${name}-help`} className="muted small">
          {help}
        </p>
      )}
      <CheckboxGroupMessage id={`${name}-error`} text={error}>
        {children}
      </CheckboxGroupMessage>
    </fieldset>
  );
}

/**
 * The form's own message: why the request failed when no field says, or that fields say why. It is
 * announced (a live region, always there) and never focused: focus stays on the submit button or
 * goes to the first field with a message.
 */
export function FormError({ text }: { text: string }) {
  return (
    <p className="error form-error" role="alert">
      {text}
    </p>
  );
}

/**
 * The end of a create or edit form: its message, the submit button and Cancel. The button stays
 * focusable while the request runs (aria-disabled; useFormSubmit ignores a second submit): a
 * disabled button loses focus to <body>. A form given back after signing in (`restored`) opens with
 * focus on it, as its refused submit left it, the form's message above it announced.
 */
export function FormEnd({
  formError,
  busy,
  action,
  onCancel,
  restored = false,
}: {
  formError: string;
  busy: boolean;
  action: string;
  onCancel: () => void;
  restored?: boolean;
}) {
  return (
    <>
      <FormError text={formError} />
      <div className="buttons">
        <button className="primary" type="submit" aria-disabled={busy || undefined} autoFocus={restored}>
          {action}
        </button>
        <CancelButton onClick={onCancel} />
      </div>
    </>
  );
}

/**
 * A form's keys: Escape cancels it while nothing was typed or chosen (its opener gets focus back:
 * `cancel` says how); a form with changes is closed by its Cancel button only, so a stray Escape
 * does not throw them away.
 */
export const escapeCancels = (cancel: () => void, dirty: boolean) => (e: React.KeyboardEvent) => {
  if (e.key === 'Escape' && !dirty) {
    e.preventDefault();
    cancel();
  }
};

/**
 * After a refused submit: focus on the first field with a message, which reads it out. A refusal no
 * field is named in leaves focus where it was: the form's message is announced (FormError).
 */
function focusFirstError(form: HTMLFormElement) {
  focusSoon(() => form.querySelector<HTMLElement>('[aria-invalid="true"]:not(:disabled)'));
}

/** A list of checked values after one checkbox changed. */
export const toggled = (list: string[], value: string, checked: boolean) => (checked ? [...list, value] : list.filter((x) => x !== value));

/**
 * A form's submit, the same for every form: the local checks first (field → message, or false
 * when the field is fine; any message stops the request), then the request; a refusal shows the API's field errors and message, any
 * other failure `failed`. A form `restored` from a draft (drafts.ts) says it was not saved.
 */
export function useFormSubmit({ restored = false } = {}) {
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [formError, setFormError] = useState('');
  // Put in after the form's first render, into its message region already on the page: a region
  // inserted with its text in it is often not read out.
  useEffect(() => {
    if (restored) setFormError(UNSAVED_TEXT);
  }, [restored]);
  const [busy, setBusy] = useState(false);
  const sending = useRef(false);
  // The form's message only points at the fields ("Check the highlighted fields."): once every
  // field's message is gone, so is it (it stayed, pointing at nothing).
  const pointsAtFields = useRef(false);
  useEffect(() => {
    if (pointsAtFields.current && Object.values(errors).every((m) => !m)) {
      pointsAtFields.current = false;
      setFormError('');
    }
  }, [errors]);
  const submitWith = (check: () => Record<string, string | false | undefined>, send: () => Promise<void>, failed: string) => async (e: React.FormEvent) => {
    e.preventDefault();
    if (sending.current) return; // the button stays focusable while busy: one request at a time
    const form = e.currentTarget as HTMLFormElement;
    const local: Record<string, string> = {};
    for (const [field, message] of Object.entries(check())) if (message) local[field] = message;
    pointsAtFields.current = false;
    setErrors(local);
    setFormError('');
    if (Object.keys(local).length) return focusFirstError(form);
    sending.current = true;
    setBusy(true);
    try {
      await send();
    } catch (err) {
      const fields = err instanceof ApiError ? err.fields : {};
      pointsAtFields.current = err instanceof ApiError && err.pointsAtFields;
      setErrors(fields);
      setFormError(err instanceof ApiError ? err.message : failed);
      if (form.isConnected) focusFirstError(form);
    } finally {
      sending.current = false;
      setBusy(false);
    }
  };
  /** A field's setter that also clears the field's message (and, asked to, the form's). */
  const edits = useCallback(
    <V,>(field: string, set: (value: V) => void, { formMessage = false } = {}) =>
      (value: V) => {
        set(value);
        setErrors((all) => ({ ...all, [field]: '' }));
        if (formMessage) setFormError('');
      },
    [],
  );
  /** The props of a TextField for `field`: its value, its message, and `edits` as onChange. */
  const field = (name: string, value: string, set: (value: string) => void, clears?: { formMessage: boolean }) => ({
    name,
    value,
    error: errors[name],
    onChange: edits(name, set, clears),
  });
  return { errors, formError, busy, submitWith, edits, field };
}
