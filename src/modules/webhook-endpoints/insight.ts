// What the portal shows about deliveries: per-endpoint health, the delivery log with the latest
// error, and one delivery with every attempt and the exact request that was sent.
import { sql } from 'kysely';
import type { Ctx } from '../../http/context.ts';
import { notFound } from '../../http/errors.ts';
import { iso } from '../../http/serialize.ts';
import type { Attempt, DeliveryDetail, EndpointHealth, PortalDelivery } from './schemas.ts';
import { presentDelivery } from './service.ts';

/** Deliveries of the last 24 hours and the latest failed attempt, for each of the merchant's endpoints. */
export async function endpointHealth(ctx: Ctx): Promise<Map<string, EndpointHealth>> {
  const [counts, failures] = await Promise.all([
    ctx.db
      .selectFrom('webhook_deliveries')
      .select((eb) => [
        'endpoint_id',
        eb.fn.countAll<string>().as('total'),
        sql<string>`count(*) filter (where status = 'delivered')`.as('delivered'),
        sql<string>`count(*) filter (where status = 'failed')`.as('failed'),
      ])
      .where('merchant_id', '=', ctx.merchantId)
      .where('created_at', '>', sql<Date>`clock_timestamp() - interval '24 hours'`)
      .groupBy('endpoint_id')
      .execute(),
    sql<{ endpoint_id: string; delivery_id: string; created_at: Date; status_code: number | null; error: string | null; response_excerpt: string | null }>`
      select distinct on (d.endpoint_id) d.endpoint_id, a.delivery_id, a.created_at, a.status_code, a.error, a.response_excerpt
        from webhook_attempts a join webhook_deliveries d on d.id = a.delivery_id
       where a.merchant_id = ${ctx.merchantId} and (a.status_code is null or a.status_code not between 200 and 299)
       order by d.endpoint_id, a.created_at desc, a.id desc`.execute(ctx.db),
  ]);
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
  for (const f of failures.rows) {
    health(f.endpoint_id).last_failure = { at: iso(f.created_at), delivery_id: f.delivery_id, status_code: f.status_code, error: f.error, response_excerpt: f.response_excerpt };
  }
  return out;
}

export const emptyHealth = (): EndpointHealth => ({ deliveries_24h: 0, delivered_24h: 0, failed_24h: 0, success_rate: null, last_failure: null });

function deliveryQuery(ctx: Ctx) {
  return ctx.db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('events as e', 'e.id', 'd.event_id')
    .innerJoin('webhook_endpoints as w', 'w.id', 'd.endpoint_id')
    .select([
      'd.id', 'd.event_id', 'e.type as event_type', 'd.status', 'd.attempts', 'd.last_status_code', 'd.next_attempt_at', 'd.created_at', 'd.updated_at',
      'd.resent_from', 'd.endpoint_id', 'w.url as endpoint_url',
      (eb) =>
        eb.selectFrom('webhook_attempts as a').select('a.error').whereRef('a.delivery_id', '=', 'd.id').orderBy('a.attempt', 'desc').limit(1).as('last_error'),
    ])
    .where('d.merchant_id', '=', ctx.merchantId);
}

type DeliveryRow = Awaited<ReturnType<ReturnType<typeof deliveryQuery>['executeTakeFirstOrThrow']>>;

function presentPortalDelivery(d: DeliveryRow): PortalDelivery {
  return { ...presentDelivery(d), resent_from: d.resent_from, last_error: d.last_error ?? null };
}

/** Newest first: the portal's delivery log. */
export async function deliveryLog(ctx: Ctx, endpointId: string, limit = 50): Promise<PortalDelivery[]> {
  const endpoint = await ctx.db.selectFrom('webhook_endpoints').select('id').where('merchant_id', '=', ctx.merchantId).where('id', '=', endpointId).executeTakeFirst();
  if (!endpoint) throw notFound('webhook endpoint');
  const rows = await deliveryQuery(ctx).where('d.endpoint_id', '=', endpointId).orderBy('d.created_at', 'desc').orderBy('d.id', 'desc').limit(limit).execute();
  return rows.map(presentPortalDelivery);
}

export async function deliveryDetail(ctx: Ctx, endpointId: string, deliveryId: string): Promise<DeliveryDetail> {
  const d = await deliveryQuery(ctx).where('d.endpoint_id', '=', endpointId).where('d.id', '=', deliveryId).executeTakeFirst();
  if (!d) throw notFound('delivery');
  const attempts = await ctx.db
    .selectFrom('webhook_attempts')
    .select(['id', 'attempt', 'created_at', 'status_code', 'duration_ms', 'error', 'response_excerpt', 'request_headers', 'request_body'])
    .where('merchant_id', '=', ctx.merchantId)
    .where('delivery_id', '=', deliveryId)
    .orderBy('attempt')
    .execute();
  return {
    ...presentPortalDelivery(d),
    endpoint: { id: d.endpoint_id, url: d.endpoint_url },
    attempts_log: attempts.map(
      (a): Attempt => ({
        id: a.id,
        attempt: a.attempt,
        created_at: iso(a.created_at),
        status_code: a.status_code,
        duration_ms: a.duration_ms,
        error: a.error,
        response_excerpt: a.response_excerpt,
        // Attempts made before the request was recorded (older versions) have none.
        request: a.request_headers && a.request_body !== null ? { method: 'POST', url: d.endpoint_url, headers: a.request_headers, body: a.request_body } : null,
      }),
    ),
  };
}

/** Deliveries that failed, or are retrying after a failed attempt, newest first. */
export async function failingDeliveries(ctx: Ctx, limit = 10) {
  const rows = await deliveryQuery(ctx)
    .where((eb) => eb.or([eb('d.status', '=', 'failed'), eb.and([eb('d.status', '=', 'pending'), eb('d.attempts', '>', 0)])]))
    .orderBy('d.updated_at', 'desc')
    .orderBy('d.id', 'desc')
    .limit(limit)
    .execute();
  return rows.map((d) => ({ ...presentPortalDelivery(d), endpoint: { id: d.endpoint_id, url: d.endpoint_url } }));
}
