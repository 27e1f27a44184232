// What the portal shows about deliveries: per-endpoint health, the delivery log with the latest
// error, and one delivery with every attempt and the exact request that was sent.
import type { Ctx } from '../../http/context.ts';
import { notFound } from '../../http/errors.ts';
import { iso } from '../../http/serialize.ts';
import type { Attempt, DeliveryDetail, EndpointHealth, PortalDelivery } from './schemas.ts';
import {
  countFailingDeliveries,
  selectAttemptRequests,
  selectEndpoint,
  selectFailingDeliveries,
  selectHealthCounts,
  selectLatestFailures,
  selectPortalDeliveries,
  selectPortalDelivery,
  type PortalDeliveryRow,
} from './queries.ts';
import { presentDelivery } from './service.ts';

/** Deliveries of the last 24 hours and the latest failed attempt, for each of the merchant's endpoints. */
export async function endpointHealth(ctx: Ctx): Promise<Map<string, EndpointHealth>> {
  const [counts, failures] = await Promise.all([selectHealthCounts(ctx.db, ctx), selectLatestFailures(ctx.db, ctx)]);
  const out = new Map<string, EndpointHealth>();
  const health = (id: string) => {
    let h = out.get(id);
    if (!h) out.set(id, (h = { deliveries_24h: 0, delivered_24h: 0, failed_24h: 0, success_rate: null, last_failure: null }));
    return h;
  };
  for (const c of counts) {
    const h = health(c.endpoint_id);
    h.deliveries_24h = Number(c.total);
    h.delivered_24h = Number(c.delivered);
    h.failed_24h = Number(c.failed);
    const finished = h.delivered_24h + h.failed_24h;
    h.success_rate = finished ? h.delivered_24h / finished : null;
  }
  for (const f of failures) {
    health(f.endpoint_id).last_failure = {
      at: iso(f.created_at),
      delivery_id: f.delivery_id,
      status_code: f.status_code,
      error: f.error,
      response_excerpt: f.response_excerpt,
    };
  }
  return out;
}

export const emptyHealth = (): EndpointHealth => ({ deliveries_24h: 0, delivered_24h: 0, failed_24h: 0, success_rate: null, last_failure: null });

function presentPortalDelivery(d: PortalDeliveryRow): PortalDelivery {
  return { ...presentDelivery(d), resent_from: d.resent_from, last_error: d.last_error ?? null };
}

/** Newest first: the portal's delivery log. */
/**
 * An endpoint's deliveries, newest first, a page at a time: `before` is the `next_before` of the
 * page shown (`<created_at>_<id>` of its last delivery). It stopped at the newest 50, so older
 * failed deliveries, the ones to resend, could not be reached.
 */
export async function deliveryLog(
  ctx: Ctx,
  endpointId: string,
  f: { before?: string; limit?: number } = {},
): Promise<{ items: PortalDelivery[]; next_before: string | null }> {
  if (!(await selectEndpoint(ctx.db, ctx, endpointId))) throw notFound('webhook endpoint');
  const limit = f.limit ?? 50;
  const before = f.before ? { at: new Date(f.before.slice(0, 24)), id: f.before.slice(25) } : undefined;
  const rows = await selectPortalDeliveries(ctx.db, ctx, endpointId, limit + 1, before);
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return { items: page.map(presentPortalDelivery), next_before: rows.length > limit ? `${iso(last.created_at)}_${last.id}` : null };
}

export async function deliveryDetail(ctx: Ctx, endpointId: string, deliveryId: string): Promise<DeliveryDetail> {
  const d = await selectPortalDelivery(ctx.db, ctx, endpointId, deliveryId);
  if (!d) throw notFound('delivery');
  const attempts = await selectAttemptRequests(ctx.db, ctx, deliveryId);
  return {
    ...presentPortalDelivery(d),
    endpoint: { id: d.endpoint_id, url: d.endpoint_url },
    attempts_log: attempts.map((a): Attempt => ({
      id: a.id,
      attempt: a.attempt,
      created_at: iso(a.created_at),
      status_code: a.status_code,
      duration_ms: a.duration_ms,
      error: a.error,
      response_excerpt: a.response_excerpt,
      // Attempts made before the request was recorded (older versions) have none.
      request: a.request_headers && a.request_body !== null ? { method: 'POST', url: d.endpoint_url, headers: a.request_headers, body: a.request_body } : null,
    })),
  };
}

/** Deliveries that failed, or are retrying after a failed attempt, newest first. */
export async function failingDeliveries(ctx: Ctx, limit = 10) {
  const rows = await selectFailingDeliveries(ctx.db, ctx, limit);
  return rows.map((d) => ({ ...presentPortalDelivery(d), endpoint: { id: d.endpoint_id, url: d.endpoint_url } }));
}

/** The most failing deliveries the overview counts ("1000 or more" beyond). */
export const FAILING_COUNT_CAP = 1000;

/** How many deliveries are failed or retrying now, up to FAILING_COUNT_CAP. */
export const failingCount = (ctx: Ctx) => countFailingDeliveries(ctx.db, ctx, FAILING_COUNT_CAP);
