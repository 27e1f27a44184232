// How the service's statements reach pg (every pooled connection gets this, src/db/database.ts).
//
// Named prepared statements for the statements a process runs again and again. Kysely sends every
// statement unnamed, so PostgreSQL parses and plans it on each run; for the service's reads (one
// statement each, with correlated aggregates) that was a large part of their cost. A statement text
// seen PREPARE_AFTER times gets a name (the same name on every connection, from one map), and pg then
// parses it once per connection and only binds and executes it after that. Statements whose text
// varies (an `in ($1, …, $n)` per list length) take names only while fewer than MAX_NAMED exist, so
// a connection holds a bounded number of prepared statements. DATABASE_PREPARED_STATEMENTS=false
// (transaction-mode poolers) sends every statement unnamed.
//
// Callback mode, always: with pg's promise mode (`client.query(text, values)`, as Kysely calls it)
// each statement's result stayed reachable through minor GCs (which object held it was not pinned
// down; a callback and a promise of our own around the same call do not). Measured under load (wrk -c10, GET /inventory?limit=250 on the 10k tier, --trace-gc-nvp): 18 MB of every
// minor GC survived (result rows, the answers built from them), promoted into the old generation,
// minor GCs of 8–10 ms and a full GC every 0.35 s: 19 % of the process's CPU went to GC and the
// request cost 1.8 ms of CPU where the bare handler (pool.query, callback mode inside pg-pool) took
// 0.7. With the statement sent in callback mode and our own promise around it, 0.3 MB survive and
// the same request costs 0.95 ms. (Nothing leaks either way: a full GC frees it all; only the minor
// GCs, which keep whatever an old-generation object still points at, are affected.)
import type pg from 'pg';

export const PREPARE_AFTER = 2;
export const MAX_NAMED = 256;

export class StatementNames {
  private seen = new Map<string, number>();
  private names = new Map<string, string>();

  /** The name for `text`, or undefined while it stays unnamed. */
  nameOf(text: string): string | undefined {
    const name = this.names.get(text);
    if (name !== undefined || this.names.size >= MAX_NAMED) return name;
    const count = (this.seen.get(text) ?? 0) + 1;
    if (count < PREPARE_AFTER) {
      if (this.seen.size < MAX_NAMED * 4) this.seen.set(text, count);
      return undefined;
    }
    this.seen.delete(text);
    const named = `s${this.names.size}`;
    this.names.set(text, named);
    return named;
  }
}

type Callback = (err: Error | null, result: pg.QueryResult) => void;

/** What a statement past its deadline fails with (src/db/database.ts counts it a lost connection). */
export const DEADLINE_MESSAGE = 'Query read timeout';

interface Running {
  client: pg.PoolClient;
  startedAt: number;
  timedOut: boolean;
}

/**
 * The statement deadline (DATABASE_QUERY_TIMEOUT_MS) of one pool's connections: a statement with no
 * answer for `ms` fails with DEADLINE_MESSAGE and its connection is dropped (pg would keep it, its
 * next statements queued behind the one that never ends; the pool discards it on release). One
 * sweep every tenth of the deadline (50 ms to 1 s) finds them, so a statement fails between `ms` and
 * `ms` plus a tenth. Not pg's own `query_timeout`: its timer per statement holds the statement,
 * and so its rows, where minor GCs cannot free them: they were promoted and collected by full GCs
 * (`GET /fulfillments?limit=50` at 1M: 0.75 of the baseline with it, 0.93 without; docs/decisions.md).
 */
export class StatementDeadline {
  readonly ms: number;
  private running = new Set<Running>();
  private sweeper: NodeJS.Timeout;

  constructor(ms: number) {
    this.ms = ms;
    this.sweeper = setInterval(() => this.sweep(), Math.max(50, Math.min(1_000, Math.floor(ms / 10))));
    this.sweeper.unref();
  }

  /** Counts a statement on `client` from now; the function returned ends it and says whether it ran out. */
  track(client: pg.PoolClient): () => boolean {
    const r: Running = { client, startedAt: Date.now(), timedOut: false };
    this.running.add(r);
    return () => {
      this.running.delete(r);
      return r.timedOut;
    };
  }

  private sweep(): void {
    const due = Date.now() - this.ms;
    for (const r of this.running) {
      if (r.startedAt > due) continue;
      r.timedOut = true;
      this.running.delete(r);
      dropConnection(r.client);
    }
  }

  stop(): void {
    clearInterval(this.sweeper);
  }
}

const deadlines = new WeakMap<pg.Pool, StatementDeadline>();

/** The deadline of `pool`'s statements (none: migrations' own pool, src/db/database.ts). */
export function statementDeadline(pool: pg.Pool): StatementDeadline | undefined {
  return deadlines.get(pool);
}

export function setStatementDeadline(pool: pg.Pool, deadline: StatementDeadline): void {
  deadlines.set(pool, deadline);
}

/**
 * Ends the client at once: marked ending before it is released (pg-pool then discards it instead of
 * lending it out again), its socket destroyed rather than waiting for a goodbye that will not come.
 */
function dropConnection(client: pg.PoolClient): void {
  client.end().catch(() => {});
  (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
}

/**
 * An error of a connection whose COMMIT failed: if the connection was lost then, the server may
 * have committed before it went, so the write may have been applied (src/http/errors.ts).
 */
export type CommitOutcomeUnknown = Error & { commitOutcomeUnknown?: true };

/**
 * Make `client` send Kysely's statements (`query(text, values)`) in callback mode, by name where
 * `names` gives one (pg prepares each name once per connection); null names: always unnamed. Each
 * statement is under `deadline` when one is given.
 */
export function sendStatements(client: pg.PoolClient, names: StatementNames | null, deadline?: StatementDeadline): void {
  const query = client.query.bind(client) as (config: unknown, values?: unknown, callback?: Callback) => unknown;
  // Set once a COMMIT fails: from then on (the COMMIT's own error, and the rollback's that Kysely
  // throws in its place) every error of this client says the write's outcome is unknown.
  let commitFailed = false;
  client.query = ((config: unknown, values?: unknown, callback?: Callback) => {
    if (typeof config !== 'string' || !Array.isArray(values) || callback) return query(config, values, callback);
    const name = names?.nameOf(config);
    const finish = deadline?.track(client);
    return new Promise<pg.QueryResult>((resolve, reject) => {
      const done: Callback = (failure, result) => {
        const ranOut = finish?.() === true;
        if (!failure) return resolve(result);
        // Past the deadline the sweep dropped the connection, and pg failed the statement as lost.
        const err = ranOut ? new Error(DEADLINE_MESSAGE) : failure;
        if (config === 'commit') commitFailed = true;
        if (commitFailed) (err as CommitOutcomeUnknown).commitOutcomeUnknown = true;
        reject(err);
      };
      if (name === undefined) query(config, values, done);
      else query({ name, text: config, values }, undefined, done);
    }).catch((err: Error) => {
      // As pg's promise mode does: captured where the rejection is handled, so the stack leads back
      // (through the awaiting callers) to the statement's caller, not to the socket read.
      Error.captureStackTrace(err);
      throw err;
    });
  }) as typeof client.query;
}
