// Reading the API request log (written by src/http/request-log.ts) and purging it by age.
import { sql } from 'kysely';
import type { Database } from '../../db/database.ts';
import type { Ctx } from '../../http/context.ts';
import { notFound } from '../../http/errors.ts';
import { iso } from '../../http/serialize.ts';
import type { LoggedRequest, RequestStats } from './schemas.ts';

export interface RequestFilter {
  api_key_id?: string;
  status_class?: '2xx' | '3xx' | '4xx' | '5xx' | 'errors';
  /** A substring of the path, case-insensitive. */
  path?: string;
  request_id?: string;
  /** Entries older than this entry id (the next page). */
  before?: string;
  limit?: number;
}

function entries(db: Database, withProblem: boolean) {
  return db
    .selectFrom('request_log as r')
    .innerJoin('api_keys as k', 'k.id', 'r.api_key_id')
    .select([
      'r.id', 'r.merchant_id', 'r.request_id', 'r.created_at', 'r.method', 'r.path', 'r.query', 'r.status', 'r.error_code', 'r.duration_ms',
      'k.id as key_id', 'k.label as key_label', 'k.prefix as key_prefix',
    ])
    .$if(withProblem, (q) => q.select('r.problem'));
}

type EntryRow = {
  id: string; request_id: string; created_at: Date; method: string; path: string; query: string | null; status: number;
  error_code: string | null; duration_ms: number; key_id: string; key_label: string; key_prefix: string; problem?: unknown;
};

function present(r: EntryRow): LoggedRequest {
  return {
    id: String(r.id),
    request_id: r.request_id,
    created_at: iso(r.created_at),
    api_key: { id: r.key_id, label: r.key_label, prefix: r.key_prefix },
    method: r.method,
    path: r.path,
    query: r.query,
    status: r.status,
    error_code: r.error_code,
    duration_ms: Number(r.duration_ms),
    ...(r.problem !== undefined ? { problem: r.problem } : {}),
  };
}

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/** Newest first; `next_before` pages on. */
export async function listRequests(ctx: Ctx, f: RequestFilter): Promise<{ items: LoggedRequest[]; next_before: string | null }> {
  const limit = f.limit ?? 50;
  let q = entries(ctx.db, false).where('r.merchant_id', '=', ctx.merchantId);
  if (f.api_key_id) q = q.where('r.api_key_id', '=', f.api_key_id);
  if (f.request_id) q = q.where('r.request_id', '=', f.request_id);
  if (f.path) q = q.where('r.path', 'ilike', `%${escapeLike(f.path)}%`);
  if (f.before) q = q.where('r.id', '<', f.before);
  if (f.status_class === 'errors') q = q.where('r.status', '>=', 400);
  else if (f.status_class) {
    const low = Number(f.status_class[0]) * 100;
    q = q.where('r.status', '>=', low).where('r.status', '<', low + 100);
  }
  const rows = await q.orderBy('r.id', 'desc').limit(limit + 1).execute();
  const items = rows.slice(0, limit).map(present);
  return { items, next_before: rows.length > limit ? items[items.length - 1].id : null };
}

/** One request of this merchant by its X-Request-Id, with its problem body. */
export async function getRequest(ctx: Ctx, requestId: string): Promise<LoggedRequest> {
  const row = await entries(ctx.db, true).where('r.merchant_id', '=', ctx.merchantId).where('r.request_id', '=', requestId).executeTakeFirst();
  if (!row) throw notFound('request in the log');
  return present(row);
}

/** Operators: a request by its X-Request-Id, whichever merchant made it. */
export async function findRequestForOperator(db: Database, requestId: string): Promise<LoggedRequest & { merchant_id: string }> {
  const row = await entries(db, true).where('r.request_id', '=', requestId).executeTakeFirst();
  if (!row) throw notFound('request in the log');
  return { merchant_id: row.merchant_id, ...present(row) };
}

/** Requests and errors in the last 24 hours, per hour (oldest first). */
export async function requestStats(ctx: Ctx): Promise<RequestStats> {
  const { rows } = await sql<{ hour: Date; total: string; errors: string }>`
    select h.hour, count(r.id) as total, count(r.id) filter (where r.status >= 400) as errors
      from generate_series(date_trunc('hour', clock_timestamp()) - interval '23 hours', date_trunc('hour', clock_timestamp()), interval '1 hour') as h(hour)
      left join request_log r
        on r.merchant_id = ${ctx.merchantId}
       and r.created_at >= clock_timestamp() - interval '24 hours'
       and date_trunc('hour', r.created_at) = h.hour
     group by h.hour
     order by h.hour`.execute(ctx.db);
  const hours = rows.map((r) => ({ hour: iso(new Date(r.hour)), total: Number(r.total), errors: Number(r.errors) }));
  const total = hours.reduce((n, h) => n + h.total, 0);
  const errors = hours.reduce((n, h) => n + h.errors, 0);
  return { total, errors, error_rate: total ? errors / total : 0, hours };
}
