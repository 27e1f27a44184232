// When the retries a worker scheduled fall due, so that it claims again at each of them rather than
// at its next poll. Times are rounded up to 50 ms, so a burst of retries shares one wake-up, and at
// most `max` are kept: while endpoints keep failing, every distinct slot used to stay until it came
// (~19 new ones a second in a soak, up to 20 a second times the longest retry delay). Past `max`
// the latest are forgotten, and those retries are found by the poll (WORKER_POLL_MS late at most).

/** The most wake-up times one worker keeps (~0.5 MB). */
export const MAX_RETRY_TIMES = 10_000;
const SLOT_MS = 50;

export class RetryTimes {
  private readonly times = new Set<number>();
  private readonly max: number;

  constructor(max = MAX_RETRY_TIMES) {
    this.max = max;
  }

  get size(): number {
    return this.times.size;
  }

  /** Keeps `at` (rounded up to its slot); returns the slot, or null when it is later than every kept one and there is no room. */
  add(at: number): number | null {
    const slot = Math.ceil(at / SLOT_MS) * SLOT_MS;
    if (this.times.has(slot)) return slot;
    if (this.times.size >= this.max) {
      const latest = Math.max(...this.times);
      if (slot > latest) return null;
      this.times.delete(latest);
    }
    this.times.add(slot);
    return slot;
  }

  /** Forgets the times up to `now`; the earliest time still to come (Infinity: none). */
  takeDue(now: number): number {
    let next = Infinity;
    for (const t of this.times) {
      if (t <= now) this.times.delete(t);
      else if (t < next) next = t;
    }
    return next;
  }

  clear(): void {
    this.times.clear();
  }
}
