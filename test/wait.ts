// Waiting in tests: on a condition, never for a fixed time, and never without a deadline.

export interface WaitOptions {
  /** Give up after this long, failing with `what` (and the last value seen, when `describe` is given). */
  deadlineMs: number;
  /** What is awaited, in words: the failure reads "timed out after 5000 ms waiting for <what>". */
  what: string;
  /** How long to pause between checks (default 20 ms). */
  intervalMs?: number;
  /** The state to report on timeout (e.g. counts so far). */
  describe?: () => unknown | Promise<unknown>;
}

/**
 * Resolves with the first value of `condition` that is neither undefined, null nor false; rejects
 * at the deadline. `condition` may be async; it runs once more after the deadline passes, so a
 * check that takes longer than the deadline still gets one answer.
 */
export async function waitFor<T>(condition: () => T | undefined | null | false | Promise<T | undefined | null | false>, options: WaitOptions): Promise<T> {
  const { deadlineMs, what, intervalMs = 20 } = options;
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const value = await condition();
    if (value !== undefined && value !== null && value !== false) return value;
    if (Date.now() >= deadline) {
      const state = options.describe ? ` (last seen: ${JSON.stringify(await options.describe())})` : '';
      throw new Error(`timed out after ${deadlineMs} ms waiting for ${what}${state}`);
    }
    await new Promise((r) => setTimeout(r, Math.min(intervalMs, Math.max(0, deadline - Date.now()))));
  }
}
