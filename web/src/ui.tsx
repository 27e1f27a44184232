// Small shared pieces: copy with feedback, status messages that clear with their context, field
// errors announced to screen readers, confirmations.
import { useCallback, useEffect, useRef, useState, type ReactNode } from 'react';
import { ApiError, copyText, failureText } from './api.ts';

export function CopyButton({ text, label = 'Copy', targetId }: { text: string; label?: string; targetId?: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  const timer = useRef<number | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);
  const copy = async () => {
    const ok = await copyText(text);
    setState(ok ? 'copied' : 'failed');
    if (!ok && targetId) {
      // Select the text so the person can copy it by hand.
      const el = document.getElementById(targetId);
      if (el) getSelection()?.selectAllChildren(el);
    }
    clearTimeout(timer.current);
    timer.current = window.setTimeout(() => setState('idle'), 4000);
  };
  return (
    <span className="copy">
      <button type="button" onClick={copy}>
        {state === 'copied' ? 'Copied ✓' : label}
      </button>
      <span className={`copy-status ${state}`} role="status" aria-live="polite">
        {state === 'copied' ? 'Copied to the clipboard.' : state === 'failed' ? 'Could not copy: the text is selected, press Ctrl+C (⌘C on a Mac).' : ''}
      </span>
    </span>
  );
}

/** One message at a time for a page; any new action or context replaces or clears it. */
export function useFlash() {
  const [flash, setFlash] = useState<{ kind: 'ok' | 'error'; text: string } | null>(null);
  const ok = useCallback((text: string) => setFlash({ kind: 'ok', text }), []);
  const fail = useCallback((err: unknown) => setFlash({ kind: 'error', text: failureText(err) }), []);
  const clear = useCallback(() => setFlash(null), []);
  /** Runs an action: clears the old message, shows success or the failure. */
  const run = useCallback(async (action: () => Promise<unknown>, success?: string) => {
    setFlash(null);
    try {
      await action();
      if (success) setFlash({ kind: 'ok', text: success });
      return true;
    } catch (err) {
      setFlash({ kind: 'error', text: failureText(err) });
      return false;
    }
  }, []);
  const view = flash ? (
    <p className={flash.kind === 'ok' ? 'notice' : 'error-banner'} role={flash.kind === 'ok' ? 'status' : 'alert'}>
      {flash.text}
      <button type="button" className="link dismiss" aria-label="Dismiss message" onClick={clear}>
        ×
      </button>
    </p>
  ) : null;
  return { ok, fail, clear, run, view };
}

export function FieldMessage({ id, text }: { id: string; text?: string }) {
  // Always rendered so screen readers announce the message when it appears.
  return (
    <span id={id} className="field-error" role="alert" aria-live="assertive">
      {text ?? ''}
    </span>
  );
}

export function LoadError({ error, retry }: { error: unknown; retry: () => void }) {
  return (
    <div className="error-banner" role="alert">
      Could not load this page: {failureText(error)}{' '}
      <button type="button" className="small" onClick={retry}>
        Retry
      </button>
    </div>
  );
}

export function Confirm({ text, action, onConfirm, onCancel }: { text: ReactNode; action: string; onConfirm: () => void; onCancel: () => void }) {
  return (
    <span className="confirm" role="group" aria-label="Confirm">
      {text}{' '}
      <button type="button" className="danger" onClick={onConfirm}>
        {action}
      </button>
      <button type="button" className="link" onClick={onCancel}>
        Cancel
      </button>
    </span>
  );
}

export function StatusBadge({ status }: { status: string }) {
  const color = status === 'delivered' || status === 'enabled' ? 'green' : status === 'failed' ? 'red' : status === 'disabled' ? 'grey' : 'amber';
  return <span className={`badge ${color}`}>{status}</span>;
}

/** A scrollable table: the column headings, then the rows (`<tr>`s) as children. */
export function DataTable({ className, head, children }: { className?: string; head: string[]; children: ReactNode }) {
  return (
    <div className="table-wrap">
      <table className={className}>
        <thead>
          <tr>
            {head.map((h, i) => (
              <th key={i}>{h}</th>
            ))}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}

/** A delivery's status, attempts and last answer (status code, else error), as cells of a table row. */
export function DeliveryOutcomeCells({
  delivery: d,
  answerLabel,
}: {
  delivery: { status: string; attempts: number; last_status_code: number | null; last_error: string | null };
  answerLabel: string;
}) {
  return (
    <>
      <td data-label="Status">
        <StatusBadge status={d.status} />
      </td>
      <td data-label="Attempts">{d.attempts}</td>
      <td data-label={answerLabel} className="break">
        {d.last_status_code ?? d.last_error ?? '—'}
      </td>
    </>
  );
}

export function CodeBadge({ code }: { code: number | null }) {
  if (code === null) return <span className="badge red">no answer</span>;
  return <span className={`badge ${code < 300 ? 'green' : code < 500 ? 'amber' : 'red'}`}>{code}</span>;
}

/** Loads data for a page, with its error and a reload. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]) {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<unknown>(null);
  // Only the latest load may set the state: an answer to an earlier one (a filter since changed,
  // a page since left) that arrives late is dropped rather than shown under the new filter.
  const latest = useRef(0);
  const reload = useCallback(async () => {
    const mine = ++latest.current;
    try {
      const loaded = await load();
      if (mine !== latest.current) return;
      setData(loaded);
      setError(null);
    } catch (err) {
      if (mine === latest.current) setError(err);
    }
    // The caller's deps decide when to load again (as with useEffect), not this closure.
  }, deps);
  useEffect(() => void reload(), [reload]);
  return { data, error, reload, setData };
}

/**
 * A form's submit, the same for every form: the local checks first (field → message, or false
 * when the field is fine; any message stops the request), then the request; a refusal shows the API's field errors and message, any
 * other failure `failed`.
 */
export function useFormSubmit() {
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [formError, setFormError] = useState('');
  const [busy, setBusy] = useState(false);
  const submitWith = (check: () => Record<string, string | false | undefined>, send: () => Promise<void>, failed: string) => async (e: React.FormEvent) => {
    e.preventDefault();
    const local: Record<string, string> = {};
    for (const [field, message] of Object.entries(check())) if (message) local[field] = message;
    setErrors(local);
    setFormError('');
    if (Object.keys(local).length) return;
    setBusy(true);
    try {
      await send();
    } catch (err) {
      setErrors(err instanceof ApiError ? err.fields : {});
      setFormError(err instanceof ApiError ? err.message : failed);
    } finally {
      setBusy(false);
    }
  };
  return { errors, setErrors, formError, setFormError, busy, submitWith };
}
