// Reading the API request log (written by src/http/request-log.ts) for the portal and operators.
import type { Database } from '../../db/database.ts';
import type { Ctx } from '../../http/context.ts';
import { notFound } from '../../http/errors.ts';
import { iso } from '../../http/serialize.ts';
import { selectHourlyCounts, selectRequest, selectRequestAnyMerchant, selectRequests, type EntryRow, type RequestFilter } from './queries.ts';
import type { LoggedRequest, RequestStats } from './schemas.ts';

function present(r: EntryRow): LoggedRequest {
  return {
    id: r.request_id,
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

/** Newest first; `next_before` pages on. */
export async function listRequests(ctx: Ctx, f: RequestFilter & { limit?: number }): Promise<{ items: LoggedRequest[]; next_before: string | null }> {
  const limit = f.limit ?? 50;
  const rows = await selectRequests(ctx.db, ctx, f, limit);
  const items = rows.slice(0, limit).map(present);
  return { items, next_before: rows.length > limit ? items[items.length - 1].id : null };
}

/** One request of this merchant by its X-Request-Id, with its problem body. */
export async function getRequest(ctx: Ctx, requestId: string): Promise<LoggedRequest> {
  const row = await selectRequest(ctx.db, ctx, requestId);
  if (!row) throw notFound('request in the log');
  return present(row);
}

/** Operators: a request by its X-Request-Id, whichever merchant made it. */
export async function findRequestForOperator(db: Database, requestId: string): Promise<LoggedRequest & { merchant_id: string }> {
  const row = await selectRequestAnyMerchant(db, requestId);
  if (!row) throw notFound('request in the log');
  return { merchant_id: row.merchant_id, ...present(row) };
}

/** Requests and errors in the last 24 hours, per hour (oldest first). */
export async function requestStats(ctx: Ctx): Promise<RequestStats> {
  const rows = await selectHourlyCounts(ctx.db, ctx);
  const hours = rows.map((r) => ({ hour: iso(new Date(r.hour)), total: Number(r.total), errors: Number(r.errors) }));
  const total = hours.reduce((n, h) => n + h.total, 0);
  const errors = hours.reduce((n, h) => n + h.errors, 0);
  return { total, errors, error_rate: total ? errors / total : 0, hours };
}
