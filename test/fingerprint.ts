// A fingerprint of every table's rows, to prove a refused request wrote nothing.
//
// What a 4xx may legitimately write, and is therefore left out:
// - idempotency_keys: 4xx answers to writes with an Idempotency-Key are stored (contract §5);
// - request_log: every authenticated integration request is logged, errors included (written
//   off the request path, in batches);
// - api_keys.last_used_at: written by authentication, before the request is judged (at most once a
//   minute per key);
// - portal_sessions.last_seen_at / expires_at: the session's sliding expiry, also written before
//   the request is judged.
import { sql } from 'kysely';
import type { Database } from '../src/db/database.ts';

export const EXCLUDED_TABLES = ['idempotency_keys', 'request_log'];
export const EXCLUDED_COLUMNS: Record<string, string[]> = {
  api_keys: ['last_used_at'],
  portal_sessions: ['last_seen_at', 'expires_at'],
};

let tables: string[] | null = null;

/** Row count and an md5 of the sorted rows, per table. */
export async function fingerprint(db: Database): Promise<Record<string, string>> {
  tables ??= (
    await sql<{
      name: string;
    }>`select table_name as name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE' order by 1`.execute(db)
  ).rows
    .map((r) => r.name)
    .filter((n) => !EXCLUDED_TABLES.includes(n));
  const parts = tables.map((name) => {
    const drop = EXCLUDED_COLUMNS[name] ?? [];
    const row = drop.length ? `(to_jsonb(t) - array[${drop.map((c) => `'${c}'`).join(',')}]::text[])::text` : 'to_jsonb(t)::text';
    return `select '${name}' as name, count(*)::text || ':' || coalesce(md5(string_agg(${row}, '|' order by ${row})), '') as hash from "${name}" t`;
  });
  const { rows } = await sql<{ name: string; hash: string }>`${sql.raw(parts.join(' union all '))}`.execute(db);
  return Object.fromEntries(rows.map((r) => [r.name, r.hash]));
}
