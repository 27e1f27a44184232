// The portal's events page: the merchant's recent events, newest first, with their payload and
// the deliveries each one made (to which endpoint, with what outcome).
import type { Ctx } from '../../http/context.ts';
import { iso } from '../../http/serialize.ts';
import { selectDeliveriesOfEvents, selectRecentEvents } from './queries.ts';
import type { LoggedEvent } from './schemas.ts';

/** `before` is `<created_at>_<id>` of the last event shown (the route checks its form). */
export async function recentEvents(
  ctx: Ctx,
  f: { type?: string; before?: string; limit?: number },
): Promise<{ items: LoggedEvent[]; next_before: string | null }> {
  const limit = f.limit ?? 25;
  const before = f.before ? { at: new Date(f.before.slice(0, 24)), id: f.before.slice(25) } : undefined;
  const rows = await selectRecentEvents(ctx.db, ctx, { type: f.type, before }, limit);
  const page = rows.slice(0, limit);
  const deliveries = await selectDeliveriesOfEvents(
    ctx.db,
    ctx,
    page.map((e) => e.id),
  );
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
