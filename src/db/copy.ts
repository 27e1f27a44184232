// COPY … FROM STDIN on a client of the PostgreSQL pool (pg-copy-streams): the cheapest way to add
// many rows at once. PostgreSQL parses COPY's text format with no planning and no per-row function
// calls; for the request log (500-row batches; then its primary key and four indexes) the backend spent
// about a third less than on INSERT … SELECT FROM json_to_recordset($1): 9.8 against 14.0–14.8 µs a row
// (docs/decisions.md). PostgreSQL
// only: PGlite has no COPY FROM STDIN over this API; its writers keep the one-statement INSERT.
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { DEADLINE_MESSAGE, statementDeadline } from './prepared.ts';

/** A value as one field of COPY's text format. Strings must already be storable (no NUL). */
export type CopyValue = string | number | null;

const SPECIAL = /[\\\t\n\r]/;
const ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/** One field of COPY's text format: `\N` for null; backslash, tab, newline and carriage return escaped. */
export function copyField(value: CopyValue): string {
  if (value === null) return '\\N';
  if (typeof value === 'number') return String(value);
  return SPECIAL.test(value) ? value.replace(/[\\\t\n\r]/g, (c) => ESCAPES[c]) : value;
}

/**
 * Writes rows (lines of COPY's text format, each field made by copyField) into `table`'s `columns`
 * with one COPY on a client of the pool, in its own transaction. All rows or none: a row PostgreSQL
 * refuses fails the whole COPY.
 */
export function copyInto(pool: pg.Pool, table: string, columns: readonly string[]): (rows: string) => Promise<void> {
  const statement = `copy ${table} (${columns.join(', ')}) from stdin`;
  return async (rows) => {
    const client = await pool.connect();
    // Under the pool's statement deadline, as every statement (src/db/prepared.ts).
    const finish = statementDeadline(pool)?.track(client);
    try {
      await new Promise<void>((resolve, reject) => {
        const stream = client.query(copyFrom(statement));
        stream.on('finish', () => {
          finish?.();
          resolve();
        });
        stream.on('error', (err) => reject(finish?.() ? new Error(DEADLINE_MESSAGE) : err));
        stream.end(rows);
      });
    } catch (err) {
      // A COPY that failed half way leaves the connection in doubt: the pool drops it.
      client.release(err as Error);
      throw err;
    }
    client.release();
  };
}
