// Small shared pieces: copy with feedback, status messages that clear with their context,
// confirmations, page heads, badges, and data loaded for a page with its error and loading states.
import { useCallback, useEffect, useRef, useState, type ReactNode } from 'react';
import { copyText, failureText } from './api.ts';
import { focusSoon, focusStatic, takeAnnouncement } from './focus.ts';

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

/**
 * One message at a time for a page; any new action or context replaces or clears it. A message is
 * either announced or focused, never both (a focused message inside a live region was read twice):
 * by default it goes into its live region and focus stays where it is; `{ focus: true }` is for an
 * action that takes the focused control away (a form closed, a key's Revoke gone), whose message
 * is shown outside the live regions and takes focus, so it is read once, as the place focus landed.
 */
export function useFlash() {
  const [flash, setFlash] = useState<{ kind: 'ok' | 'error'; text: string; focus: boolean } | null>(null);
  const focused = useRef<HTMLParagraphElement | null>(null);
  useEffect(() => {
    if (flash?.focus) focusStatic(focused.current);
  }, [flash]);
  // What the previous page's action left to say (an endpoint added or deleted), once this page's
  // live regions exist: text put into a region already on the page is what screen readers read.
  useEffect(() => {
    const text = takeAnnouncement();
    if (text) setFlash({ kind: 'ok', text, focus: false });
  }, []);
  const ok = useCallback((text: string, { focus = false } = {}) => setFlash({ kind: 'ok', text, focus }), []);
  const fail = useCallback((err: unknown) => setFlash({ kind: 'error', text: failureText(err), focus: false }), []);
  const clear = useCallback(() => setFlash(null), []);
  /**
   * Runs an action: clears the old message, shows success or the failure. The success takes focus
   * with `{ focus: true }`; a failure is always announced (the control that asked is still there).
   */
  const run = useCallback(async (action: () => Promise<unknown>, success?: string, { focus = false } = {}) => {
    setFlash(null);
    try {
      await action();
      if (success) setFlash({ kind: 'ok', text: success, focus });
      return true;
    } catch (err) {
      setFlash({ kind: 'error', text: failureText(err), focus: false });
      return false;
    }
  }, []);
  const message = (kind: 'ok' | 'error', focus: boolean) =>
    flash?.kind === kind && flash.focus === focus ? (
      <p className={`flash-message ${kind === 'ok' ? 'notice' : 'error-banner'}`} ref={focus ? focused : undefined} tabIndex={focus ? -1 : undefined}>
        {flash.text}
        <button type="button" className="link dismiss" aria-label="Dismiss message" onClick={clear}>
          ×
        </button>
      </p>
    ) : null;
  // Both live regions are always on the page, an announced message put into one of them: a region
  // inserted with its text already in it is often not read out.
  const view = (
    <div className="flash">
      {message('ok', true)}
      <div role="status">{message('ok', false)}</div>
      <div role="alert">{message('error', false)}</div>
    </div>
  );
  return { ok, fail, clear, run, view };
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

/**
 * A confirmation in place of the button that asked for it (`opener`, its id): focus starts on
 * Cancel, Escape cancels, and a cancel puts focus back on the opener.
 */
export function Confirm({
  text,
  action,
  onConfirm,
  onCancel,
  opener,
}: {
  text: ReactNode;
  action: string;
  onConfirm: () => void;
  onCancel: () => void;
  opener?: string;
}) {
  const cancel = () => {
    onCancel();
    if (opener) focusSoon(opener);
  };
  // Confirmed, focus goes back to the opener too where the page shows it again (Rotate…); where
  // it is gone (a revoked key's Revoke), keepFocus takes over.
  const confirm = () => {
    onConfirm();
    if (opener) focusSoon(opener, 10);
  };
  return (
    <span
      className="confirm"
      role="group"
      aria-label="Confirm"
      onKeyDown={(e) => {
        if (e.key === 'Escape') cancel();
      }}
    >
      {text}{' '}
      <button type="button" className="danger" onClick={confirm}>
        {action}
      </button>
      <CancelButton onClick={cancel} autoFocus />
    </span>
  );
}

export function CancelButton({ onClick, autoFocus }: { onClick: () => void; autoFocus?: boolean }) {
  return (
    <button type="button" className="link" onClick={onClick} autoFocus={autoFocus}>
      Cancel
    </button>
  );
}

/** A page's title, what the page is for, and its main actions. */
export function PageHead({ title, intro, children }: { title: string; intro: ReactNode; children?: ReactNode }) {
  return (
    <div className="page-head">
      <div>
        <h1>{title}</h1>
        <p className="muted">{intro}</p>
      </div>
      {children}
    </div>
  );
}

export function Card({ title, children }: { title: string; children: ReactNode }) {
  return (
    <div className="card">
      <h2>{title}</h2>
      {children}
    </div>
  );
}

export function StatusBadge({ status }: { status: string }) {
  const color = status === 'delivered' || status === 'enabled' ? 'green' : status === 'failed' ? 'red' : status === 'disabled' ? 'grey' : 'amber';
  return <span className={`badge ${color}`}>{status}</span>;
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
  // It gives what it loaded (undefined when it failed or a later load overtook it).
  const reload = useCallback(async (): Promise<T | undefined> => {
    const mine = ++latest.current;
    try {
      const loaded = await load();
      if (mine !== latest.current) return;
      setData(loaded);
      setError(null);
      return loaded;
    } catch (err) {
      if (mine === latest.current) setError(err);
    }
    // The caller's deps decide when to load again (as with useEffect), not this closure.
  }, deps);
  useEffect(() => void reload(), [reload]);
  return { data, error, reload, setData };
}

export interface LoadState<T> {
  data: T | null;
  error: unknown;
  reload: () => unknown;
}

/** What loaded data shows: its load error with Retry, then "Loading…", then `children` with the data. */
export function Loaded<T>({ state: { data, error, reload }, children }: { state: LoadState<T>; children: (data: T) => ReactNode }) {
  if (error) return <LoadError error={error} retry={reload} />;
  if (data === null) return <p className="muted">Loading…</p>;
  return children(data);
}

/** A loaded list: as Loaded, with `empty` in place of a list of nothing. */
export function LoadedList<T>({ state, empty, children }: { state: LoadState<T[]>; empty: ReactNode; children: (rows: T[]) => ReactNode }) {
  return <Loaded state={state}>{(rows) => (rows.length === 0 ? empty : children(rows))}</Loaded>;
}
