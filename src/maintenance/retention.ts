// Data retention: one maintenance job, run by the worker role, deletes what is past its window.
// Each statement deletes at most PURGE_BATCH rows (short locks, no burst of WAL), looping until
// nothing is left; every delete re-checks its condition, so a row touched meanwhile (a session
// used again, a delivery leased by a worker) stays. Several worker processes may run it at once:
// deletes are idempotent, at worst one waits for the other's rows and finds them gone.
import { sql, type RawBuilder } from 'kysely';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import { uuidV7Floor } from '../db/uuid7.ts';
import { retentionPurged } from '../metrics.ts';

export const PURGE_BATCH = 1000;

export interface PurgeStep {
  /** What is purged (logs, metrics). */
  name: string;
  /** Deletes at most `limit` rows past the window; resolves with how many it deleted. */
  purgeBatch(db: Database, limit: number): Promise<number>;
}

export type RetentionSettings = Pick<Config, 'eventRetentionDays' | 'deliveryRetentionDays' | 'idempotencyRetentionHours' | 'requestLogRetentionDays'>;

async function deleted(statement: RawBuilder<unknown>, db: Database): Promise<number> {
  const result = await statement.execute(db);
  return Number(result.numAffectedRows ?? 0n);
}

/** The purge steps, in an order that respects foreign keys (deliveries before their events). */
export function retentionSteps(settings: RetentionSettings): PurgeStep[] {
  const deliveryCutoff = sql`clock_timestamp() - ${`${settings.deliveryRetentionDays} days`}::interval`;
  const eventCutoff = sql`clock_timestamp() - ${`${settings.eventRetentionDays} days`}::interval`;
  const idempotencyCutoff = sql`clock_timestamp() - ${`${settings.idempotencyRetentionHours} hours`}::interval`;
  // statement_timestamp(), not clock_timestamp(): a stable value bounds the primary key's range (the
  // planner keeps a volatile one out of an index condition and read the whole log).
  const requestLogCutoff = sql`statement_timestamp() - ${`${settings.requestLogRetentionDays} days`}::interval`;
  return [
    {
      // Sessions end at expiry (sliding: use pushes expires_at forward).
      name: 'portal_sessions',
      purgeBatch: (db, limit) =>
        deleted(
          sql`delete from portal_sessions
               where id in (select id from portal_sessions where expires_at < clock_timestamp() limit ${limit})
                 and expires_at < clock_timestamp()`,
          db,
        ),
    },
    {
      name: 'idempotency_keys',
      purgeBatch: (db, limit) =>
        deleted(
          sql`delete from idempotency_keys
               where (merchant_id, method, path, key) in (
                     select merchant_id, method, path, key from idempotency_keys where created_at < ${idempotencyCutoff} limit ${limit})
                 and created_at < ${idempotencyCutoff}`,
          db,
        ),
    },
    {
      // Whatever their status; their attempts go with them (on delete cascade). A delivery a worker
      // holds a lease on is left until the lease ends, so its attempt can still be recorded.
      name: 'webhook_deliveries',
      purgeBatch: (db, limit) =>
        deleted(
          sql`delete from webhook_deliveries
               where id in (
                     select id from webhook_deliveries
                      where created_at < ${deliveryCutoff} and (locked_until is null or locked_until < clock_timestamp())
                      limit ${limit})
                 and created_at < ${deliveryCutoff} and (locked_until is null or locked_until < clock_timestamp())`,
          db,
        ),
    },
    {
      // An event still referenced by a kept delivery (DELIVERY_RETENTION_DAYS longer than
      // EVENT_RETENTION_DAYS) stays until that delivery goes.
      name: 'events',
      purgeBatch: (db, limit) =>
        deleted(
          sql`delete from events ev
               where ev.id in (
                     select e.id from events e
                      where e.created_at < ${eventCutoff} and not exists (select 1 from webhook_deliveries d where d.event_id = e.id)
                      limit ${limit})
                 and not exists (select 1 from webhook_deliveries d where d.event_id = ev.id)`,
          db,
        ),
    },
    {
      // The portal's API request log (REQUEST_LOG_RETENTION_DAYS, default 7).
      name: 'request_log',
      purgeBatch: (db, limit) =>
        deleted(
          // By request id (UUIDv7: when the request came in), through the primary key.
          sql`delete from request_log
               where request_id in (select request_id from request_log where request_id < ${uuidV7Floor(requestLogCutoff)} limit ${limit})`,
          db,
        ),
    },
  ];
}

/** Runs every step to the end, batch after batch. Resolves with the rows deleted per step. */
export async function purgeExpired(db: Database, steps: PurgeStep[], log: Logger, batch = PURGE_BATCH): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const step of steps) {
    counts[step.name] = 0;
    try {
      for (;;) {
        const n = await step.purgeBatch(db, batch);
        counts[step.name] += n;
        retentionPurged.inc({ table: step.name }, n);
        if (n < batch) break;
        await new Promise((resolve) => setImmediate(resolve)); // let requests in between batches (PGlite is one session)
      }
    } catch (err) {
      // One failing step (the database away for a moment) does not stop the others; the next run retries.
      log.error({ err, step: step.name }, 'retention purge failed');
    }
  }
  return counts;
}

export interface RetentionJob {
  /** Purge now (tests); resolves with the rows deleted per step. */
  runNow(): Promise<Record<string, number>>;
  stop(): Promise<void>;
}

/** The worker role's maintenance job: purges at start, then every RETENTION_INTERVAL_MS. */
export function startRetention(db: Database, config: Config, log: Logger, options: { autoStart?: boolean; steps?: PurgeStep[] } = {}): RetentionJob {
  const steps = options.steps ?? retentionSteps(config);
  let running: Promise<Record<string, number>> | null = null;
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;

  function runNow() {
    running ??= purgeExpired(db, steps, log)
      .then((counts) => {
        if (Object.values(counts).some((n) => n > 0)) log.info({ purged: counts }, 'retention purge');
        return counts;
      })
      .finally(() => {
        running = null;
      });
    return running;
  }

  function schedule(delayMs: number) {
    if (stopped) return;
    // runNow() logs a failing step and never rejects, so the next run is always scheduled.
    timer = setTimeout(() => void runNow().then(() => schedule(config.retentionIntervalMs)), delayMs);
    timer.unref();
  }
  if (options.autoStart !== false) schedule(0);

  return {
    runNow,
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
