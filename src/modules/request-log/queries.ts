// Request-log statements (rows are written by src/http/request-log.ts). Every one takes the
// merchant's scope but the operator's lookup, which finds a request whichever merchant made it.
import { sql } from 'kysely';
import type { Database } from '../../db/database.ts';
import { ofMerchant, type Scope } from '../../db/scope.ts';
import { uuidV7Floor } from '../../db/uuid7.ts';

export interface RequestFilter {
  api_key_id?: string;
  status_class?: '2xx' | '3xx' | '4xx' | '5xx' | 'errors';
  /** A substring of the path, case-insensitive. */
  path?: string;
  request_id?: string;
  /** Entries older than this one (its request id: the next page). */
  before?: string;
}

function entries(db: Database, withProblem: boolean) {
  return db
    .selectFrom('request_log as r')
    .innerJoin('api_keys as k', 'k.id', 'r.api_key_id')
    .select([
      'r.merchant_id',
      'r.request_id',
      'r.created_at',
      'r.method',
      'r.path',
      'r.query',
      'r.status',
      'r.error_code',
      'r.duration_ms',
      'k.id as key_id',
      'k.label as key_label',
      'k.prefix as key_prefix',
    ])
    .$if(withProblem, (q) => q.select('r.problem'));
}

export type EntryRow = Awaited<ReturnType<ReturnType<typeof entries>['executeTakeFirstOrThrow']>>;

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/** `limit + 1` entries, newest first. */
export function selectRequests(db: Database, scope: Scope, f: RequestFilter, limit: number) {
  let q = entries(db, false).where(ofMerchant('r', scope));
  if (f.api_key_id) q = q.where('r.api_key_id', '=', f.api_key_id);
  if (f.request_id) q = q.where('r.request_id', '=', f.request_id);
  if (f.path) q = q.where('r.path', 'ilike', `%${escapeLike(f.path)}%`);
  if (f.before) q = q.where('r.request_id', '<', f.before);
  if (f.status_class === 'errors') q = q.where('r.status', '>=', 400);
  else if (f.status_class) {
    const low = Number(f.status_class[0]) * 100;
    q = q.where('r.status', '>=', low).where('r.status', '<', low + 100);
  }
  return q
    .orderBy('r.request_id', 'desc')
    .limit(limit + 1)
    .execute();
}

export function selectRequest(db: Database, scope: Scope, requestId: string) {
  return entries(db, true).where(ofMerchant('r', scope)).where('r.request_id', '=', requestId).executeTakeFirst();
}

/** Across merchants (operators): a request by its X-Request-Id. */
export function selectRequestAnyMerchant(db: Database, requestId: string) {
  return entries(db, true).where('r.request_id', '=', requestId).executeTakeFirst();
}

/**
 * Requests and errors in each of the last 24 hours, oldest first. The entries are found by their
 * request ids (UUIDv7: the time they came in), from an hour before the 24 hours so that a clock of
 * the API processes a little ahead of the database's loses none; created_at decides. The bound is
 * of statement_timestamp(): a stable value, which the planner takes into the index's range.
 */
export async function selectHourlyCounts(db: Database, scope: Scope) {
  const { rows } = await sql<{ hour: Date; total: string; errors: string }>`
    select h.hour, count(r.request_id) as total, count(r.request_id) filter (where r.status >= 400) as errors
      from generate_series(date_trunc('hour', clock_timestamp()) - interval '23 hours', date_trunc('hour', clock_timestamp()), interval '1 hour') as h(hour)
      left join request_log r
        on ${ofMerchant('r', scope)}
       and r.request_id >= ${uuidV7Floor(sql`statement_timestamp() - interval '25 hours'`)}
       and r.created_at >= clock_timestamp() - interval '24 hours'
       and date_trunc('hour', r.created_at) = h.hour
     group by h.hour
     order by h.hour`.execute(db);
  return rows;
}
