// Wakes the webhook worker the moment deliveries are committed, instead of waiting for its poll.
// Every statement that adds deliveries (or re-enables an endpoint) notifies the channel below from a
// trigger (migration 0009), so the notification leaves with the writing transaction's commit, is
// dropped by a rollback, and comes once per transaction however many rows it wrote.
//
// - PostgreSQL: a dedicated connection outside the pool LISTENs (a pooled one would be handed to
//   queries and lose the LISTEN). When it is lost (backend terminated, server restart, network) it
//   reconnects with backoff, and after every (re)connection it wakes the worker once: whatever was
//   committed while nobody listened is claimed then (the catch-up). The worker's slow poll stays as
//   a safety net for what no notification announces (a dead worker's expired lease, a lost socket
//   not yet noticed).
// - PGlite (one process, one session): its own LISTEN delivers the notification in process right
//   after the committing statement returns, so the same trigger serves both databases.
import pg from 'pg';
import type { Logger } from 'pino';
import type { DatabaseHandle } from '../db/database.ts';

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
  let client: pg.Client | null = null;
  let closed = false;
  let retry: NodeJS.Timeout | null = null;
  let backoffMs = 100;

  async function connect() {
    retry = null;
    if (closed) return;
    const c = new pg.Client({ ...pool.options, application_name: WAKE_APPLICATION_NAME, keepAlive: true });
    let lost = false;
    const onLost = (err?: Error) => {
      if (lost) return;
      lost = true;
      if (client === c) client = null;
      c.end().catch(() => {});
      if (closed) return;
      log.warn({ err: err ? { message: err.message, code: (err as { code?: string }).code } : undefined, retryInMs: backoffMs }, 'webhook wake connection lost; reconnecting');
      retry = setTimeout(() => void connect(), backoffMs); // connect() handles its own failures and never rejects
      backoffMs = Math.min(backoffMs * 2, 5_000);
    };
    c.on('error', onLost);
    c.on('end', () => onLost());
    c.on('notification', wake);
    try {
      await c.connect();
      await c.query(`listen ${WAKE_CHANNEL}`);
    } catch (err) {
      onLost(err as Error);
      return;
    }
    if (lost) return;
    if (closed) {
      await c.end().catch(() => {});
      return;
    }
    client = c;
    backoffMs = 100;
    wake(); // catch up on what was committed while nobody listened
  }
  void connect();

  return {
    async close() {
      closed = true;
      if (retry) clearTimeout(retry);
      await client?.end().catch(() => {});
    },
  };
}
