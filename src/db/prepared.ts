// Named prepared statements for the statements a process runs again and again. Kysely sends every
// statement unnamed, so PostgreSQL parses and plans it on each run; for the service's reads (one
// statement each, with correlated aggregates) that was a large part of their cost. A statement text
// seen PREPARE_AFTER times gets a name (the same name on every connection, from one map), and pg then
// parses it once per connection and only binds and executes it after that. Statements whose text
// varies (an `in ($1, …, $n)` per list length) take names only while fewer than MAX_NAMED exist, so
// a connection holds a bounded number of prepared statements.
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

/** Make `client` run statements by name where `names` gives one (pg prepares each name once per connection). */
export function preparing(client: pg.PoolClient, names: StatementNames): void {
  const query = client.query.bind(client) as (config: unknown, values?: unknown) => unknown;
  client.query = ((config: unknown, values?: unknown) => {
    if (typeof config === 'string' && Array.isArray(values)) {
      const name = names.nameOf(config);
      if (name !== undefined) return query({ name, text: config, values });
    }
    return query(config, values);
  }) as typeof client.query;
}
