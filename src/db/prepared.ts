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
 * `names` gives one (pg prepares each name once per connection); null names: always unnamed.
 */
export function sendStatements(client: pg.PoolClient, names: StatementNames | null): void {
  const query = client.query.bind(client) as (config: unknown, values?: unknown, callback?: Callback) => unknown;
  // Set once a COMMIT fails: from then on (the COMMIT's own error, and the rollback's that Kysely
  // throws in its place) every error of this client says the write's outcome is unknown.
  let commitFailed = false;
  client.query = ((config: unknown, values?: unknown, callback?: Callback) => {
    if (typeof config !== 'string' || !Array.isArray(values) || callback) return query(config, values, callback);
    const name = names?.nameOf(config);
    return new Promise<pg.QueryResult>((resolve, reject) => {
      const done: Callback = (err, result) => {
        if (!err) return resolve(result);
        // No answer within query_timeout: the connection is dropped (pg would keep it, its next
        // statements queued behind the one that never ends); the pool discards it on release.
        if (err.message === 'Query read timeout') dropConnection(client);
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
