// Wakes the webhook worker the moment deliveries are committed, instead of waiting for its poll.
// Every statement that adds deliveries (or re-enables an endpoint) notifies the channel below from a
// trigger (migration 0009), so the notification leaves with the writing transaction's commit, is
// dropped by a rollback, and comes once per transaction however many rows it wrote.
//
// - PostgreSQL: a dedicated connection outside the pool LISTENs (src/db/listen.ts, the same
//   reconnecting listener the API key cache uses). When it is lost it reconnects with backoff, and
//   after every (re)connection it wakes the worker once: whatever was
//   committed while nobody listened is claimed then (the catch-up). The worker's slow poll stays as
//   a safety net for what no notification announces (a dead worker's expired lease, a lost socket
//   not yet noticed).
// - PGlite (one process, one session): its own LISTEN delivers the notification in process right
//   after the committing statement returns, so the same trigger serves both databases.
import type pg from 'pg';
import type { Logger } from 'pino';
import type { DatabaseHandle } from '../db/database.ts';
import { listen } from '../db/listen.ts';

export const WAKE_CHANNEL = 'webhook_deliveries';
/** The listening connection's application_name (operators and tests find it in pg_stat_activity). */
export const WAKE_APPLICATION_NAME = 'webhook-worker-wake';

export interface DeliveryWake {
  /** fn runs on every notification and after every (re)connection of the listener. */
  subscribe(fn: () => void): void;
  close(): Promise<void>;
}

export function deliveryWake(handle: DatabaseHandle, log: Logger): DeliveryWake {
  const subscribers = new Set<() => void>();
  const wake = () => {
    for (const fn of subscribers) fn();
  };
  const source = handle.pglite ? pgliteListener(handle.pglite, wake, log) : handle.pool ? postgresListener(handle.pool, wake, log) : null;
  return {
    subscribe: (fn) => void subscribers.add(fn),
    close: async () => {
      subscribers.clear();
      await source?.close();
    },
  };
}

function pgliteListener(pglite: NonNullable<DatabaseHandle['pglite']>, wake: () => void, log: Logger) {
  const listening = pglite.listen(WAKE_CHANNEL, wake).then(
    (unlisten) => {
      wake();
      return unlisten;
    },
    (err) => {
      log.error({ err }, 'webhook worker could not listen for deliveries; it finds them by its poll');
      return null;
    },
  );
  return {
    async close() {
      const unlisten = await listening;
      if (unlisten && !pglite.closed) await unlisten().catch(() => {});
    },
  };
}

function postgresListener(pool: pg.Pool, wake: () => void, log: Logger) {
  return listen(
    pool,
    {
      channels: [WAKE_CHANNEL],
      applicationName: WAKE_APPLICATION_NAME,
      label: 'webhook wake',
      onNotify: wake,
      onConnected: wake, // catch up on what was committed while nobody listened
      onLost() {},
    },
    log,
  );
}
