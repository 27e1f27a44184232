// The portal's events page: the merchant's recent events, newest first, with their payload and
// the deliveries each one made (to which endpoint, with what outcome).
import { Type, type Static } from 'typebox';
import type { Ctx } from '../../http/context.ts';
import { Nullable, Timestamp, Uuid } from '../../http/schemas.ts';
import { iso } from '../../http/serialize.ts';
import { DeliveryStatus } from '../webhook-endpoints/schemas.ts';

export const LoggedEvent = Type.Object({
  id: Uuid(),
  type: Type.String(),
  created_at: Timestamp(),
  location_id: Nullable(Uuid()),
  payload: Type.Unknown({ description: 'data.object of the webhook body' }),
  deliveries: Type.Array(
    Type.Object({ id: Uuid(), endpoint_id: Uuid(), endpoint_url: Type.String(), status: DeliveryStatus, attempts: Type.Integer(), last_status_code: Nullable(Type.Integer()) }),
  ),
});
export type LoggedEvent = Static<typeof LoggedEvent>;

export async function recentEvents(ctx: Ctx, f: { type?: string; before?: string; limit?: number }): Promise<{ items: LoggedEvent[]; next_before: string | null }> {
  const limit = f.limit ?? 25;
  let q = ctx.db.selectFrom('events').select(['id', 'type', 'created_at', 'location_id', 'payload']).where('merchant_id', '=', ctx.merchantId);
  if (f.type) q = q.where('type', '=', f.type);
  if (f.before) {
    const [at, id] = [f.before.slice(0, 24), f.before.slice(25)];
    q = q.where((eb) => eb.or([eb('created_at', '<', new Date(at)), eb.and([eb('created_at', '=', new Date(at)), eb('id', '<', id)])]));
  }
  const rows = await q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit + 1).execute();
  const page = rows.slice(0, limit);
  const deliveries = page.length
    ? await ctx.db
        .selectFrom('webhook_deliveries as d')
        .innerJoin('webhook_endpoints as w', 'w.id', 'd.endpoint_id')
        .select(['d.id', 'd.event_id', 'd.endpoint_id', 'w.url as endpoint_url', 'd.status', 'd.attempts', 'd.last_status_code'])
        .where('d.merchant_id', '=', ctx.merchantId)
        .where('d.event_id', 'in', page.map((e) => e.id))
        .orderBy('d.created_at')
        .orderBy('d.id')
        .execute()
    : [];
  const items = page.map((e) => ({
    id: e.id,
    type: e.type,
    created_at: iso(e.created_at),
    location_id: e.location_id,
    payload: (e.payload as { object?: unknown }).object ?? null,
    deliveries: deliveries.filter((d) => d.event_id === e.id).map(({ event_id: _, ...d }) => d),
  }));
  const last = page[page.length - 1];
  return { items, next_before: rows.length > limit ? `${iso(last.created_at)}_${last.id}` : null };
}
