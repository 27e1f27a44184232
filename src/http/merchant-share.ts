// One merchant's share of an API process: at most `limit` of its requests are in progress at once;
// the next ones wait their turn, in order. A request in progress holds a database connection for
// most of its life, so without a share one merchant's burst (twelve pages of its largest products,
// or writes queued on one hot row) took every connection of the pool, and other merchants' requests
// waited for one until the pool gave up (503). A turn ends when the answer has been sent (or the
// connection closed): a page being written to a slow reader still holds its memory.
import { AppError } from './errors.ts';

/** How long a request waits for its merchant's turn before it is refused (503, nothing applied). */
export const MERCHANT_WAIT_MS = 10_000;

/** Ends a turn (at most once). */
export type EndTurn = () => void;

export interface MerchantShare {
  /** Waits for one of the merchant's turns; refused with 503 after `waitMs`. */
  take(merchantId: string): Promise<EndTurn>;
  /** Requests in progress for the merchant (tests). */
  inProgress(merchantId: string): number;
}

interface Turns {
  running: number;
  waiting: (() => void)[];
}

export function merchantShare(limit: number, waitMs: number): MerchantShare {
  const merchants = new Map<string, Turns>();

  function end(merchantId: string, turns: Turns): EndTurn {
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      const next = turns.waiting.shift();
      // The turn passes to the next waiter as it is: `running` stays the same.
      if (next) return next();
      turns.running--;
      if (turns.running === 0) merchants.delete(merchantId);
    };
  }

  return {
    take(merchantId) {
      const t = merchants.get(merchantId) ?? { running: 0, waiting: [] };
      if (t.running === 0) merchants.set(merchantId, t);
      if (t.running < limit) {
        t.running++;
        return Promise.resolve(end(merchantId, t));
      }
      return new Promise<EndTurn>((resolve, reject) => {
        const go = () => {
          clearTimeout(timer);
          resolve(end(merchantId, t));
        };
        const timer = setTimeout(() => {
          t.waiting.splice(t.waiting.indexOf(go), 1);
          reject(
            new AppError(
              'service_unavailable',
              `This merchant already has ${limit} request${limit === 1 ? '' : 's'} in progress on this instance, and none finished within ${waitMs / 1000} s; nothing was applied. Send fewer requests at once.`,
              undefined,
              { 'Retry-After': '1' },
            ),
          );
        }, waitMs);
        t.waiting.push(go);
      });
    },
    inProgress: (merchantId) => merchants.get(merchantId)?.running ?? 0,
  };
}
