// Where keyboard focus goes when the page changes under it, and what is said when it does.
// Buttons that an action removes (a confirmation replacing its opener, a form hiding the button
// that opened it, a list reloaded) took focus with them to <body>: a screen reader said nothing
// and the next Tab started at the top. The pieces that know better move focus themselves
// (`focusSoon`); `keepFocus` is the safety net for the rest.

/**
 * Focuses an element once the render that makes it is on screen: by id, or as found by `find`.
 * React commits a state change when its scheduler runs, which on a busy machine can come after the
 * next frame: the element is looked for frame after frame, for up to about a second.
 */
export function focusSoon(target: string | (() => HTMLElement | null | undefined), frames = 60): void {
  requestAnimationFrame(() => {
    const el = typeof target === 'string' ? document.getElementById(target) : target();
    if (el) el.focus();
    else if (frames > 0) focusSoon(target, frames - 1);
  });
}

/** Focuses a heading or region that is not focusable by Tab (tabindex -1), to read it out. */
export function focusStatic(el: HTMLElement | null | undefined): boolean {
  if (!el) return false;
  if (!el.hasAttribute('tabindex')) el.setAttribute('tabindex', '-1');
  el.focus();
  return true;
}

/** What a screen reader reads out by itself when its text changes. */
const LIVE_REGION = '[role="status"], [role="alert"], [aria-live]';

/**
 * Watches `root`: when the element that had focus inside it is removed and focus fell to <body>,
 * focus goes to the page's message that takes focus (what the action did), else to the page's
 * heading: a message in a live region has been read out already, and focusing it read it twice.
 * Focus the person moved out of the page on purpose (a click outside any control) is left alone.
 */
export function keepFocus(root: HTMLElement): () => void {
  let last: Element | null = null;
  const onFocusIn = (e: FocusEvent) => {
    last = e.target instanceof Element && root.contains(e.target) ? e.target : null;
  };
  const observer = new MutationObserver(() => {
    if (!last || last.isConnected) return;
    if (document.activeElement && document.activeElement !== document.body) return;
    last = null;
    const message = [...root.querySelectorAll<HTMLElement>('.flash-message')].find((m) => !m.closest(LIVE_REGION));
    if (!focusStatic(message)) focusStatic(root.querySelector<HTMLElement>('h1') ?? root);
  });
  document.addEventListener('focusin', onFocusIn);
  observer.observe(root, { childList: true, subtree: true });
  return () => {
    document.removeEventListener('focusin', onFocusIn);
    observer.disconnect();
  };
}

let pending: string | null = null;

/** A message for the next page to announce (an action that leaves the page: endpoint added or deleted). */
export function announceNext(text: string): void {
  pending = text;
}

/** The message left for this page, once. */
export function takeAnnouncement(): string | null {
  const text = pending;
  pending = null;
  return text;
}

/**
 * A page arrived in `main`: focus on its heading. A page still loading has none yet: `main` takes
 * focus meanwhile and hands it to the heading when it appears, unless the person moved on.
 */
export function focusHeading(main: HTMLElement): () => void {
  const heading = () => main.querySelector<HTMLElement>('h1');
  if (focusStatic(heading())) return () => {};
  focusStatic(main);
  const observer = new MutationObserver(() => {
    const h = heading();
    if (!h) return;
    observer.disconnect();
    if (document.activeElement === main || document.activeElement === document.body) focusStatic(h);
  });
  observer.observe(main, { childList: true, subtree: true });
  const timer = setTimeout(() => observer.disconnect(), 10_000);
  return () => {
    clearTimeout(timer);
    observer.disconnect();
  };
}
