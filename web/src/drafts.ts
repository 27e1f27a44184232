// What a person typed into a form when the session ended under it. The sign-in form replaced the
// page, and signing in brought the page back with the form empty: the typing was lost, and nothing
// said whether it had been saved. Now the open form's changes are kept when a request finds the
// session gone (its own submit, or the endpoint page's refresh, which finds it first), and the same
// user signing in again at the same address gets the form back with them, once, unsaved.
//
// Kept in this tab's memory only, never in storage: nothing typed outlives the page (a reload drops
// it), and it is given only to the user who typed it. Another user signing in, or a sign-out, drops it.
import { useEffect, useState } from 'react';

/** The form's own message when it comes back (`useFormSubmit`'s `restored`). */
export const UNSAVED_TEXT = 'Your session ended before this was saved. Check it and save again.';

/** The signed-in user's id; it stays while the session has ended, until someone signs in or out. */
let user: string | null = null;
/** The open form that has changes: its name and what it would keep now (undefined: nothing changed). */
let open: { form: string; values: () => unknown } | null = null;
let kept: { user: string; page: string; form: string; values: unknown } | null = null;

/** Someone signed in (their id) or out (null): a draft of anyone else's is dropped. */
export function draftsBelongTo(id: string | null): void {
  user = id;
  if (kept?.user !== id) kept = null;
}

/**
 * The session has ended under the page: keeps the open form's changes for its user. Called once per
 * failing request (several may fail together): a later one that finds the form gone leaves the draft.
 */
export function keepOpenForm(): void {
  const values = open?.values();
  if (open && user && values !== undefined) kept = { user, page: location.pathname, form: open.form, values };
}

/** Drops a draft the page after signing in did not take: it is given back once or never. */
export function dropUntakenDraft(): void {
  kept = null;
}

/**
 * While the form is on the page, `values` gives what to keep if the session ends now: undefined when
 * nothing was typed or changed. No secret is ever in one (a signing secret is shown, never typed).
 */
export function useKeptIfSessionEnds(form: string, values: () => unknown): void {
  useEffect(() => {
    const entry = { form, values };
    open = entry;
    return () => {
      if (open === entry) open = null;
    };
  });
}

/**
 * The draft `form` left at this address for the signed-in user, taken when the page first renders,
 * and a function to call when the form closes: opened again, it starts empty.
 */
export function useRestoredDraft<V>(form: string): [V | null, () => void] {
  const [draft, setDraft] = useState(() => {
    if (!kept || kept.form !== form || kept.page !== location.pathname || kept.user !== user) return null;
    const values = kept.values as V;
    kept = null;
    return values;
  });
  return [draft, () => setDraft(null)];
}
