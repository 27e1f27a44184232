// Event-log statements: the merchant's events newest first, and the deliveries each one made.
import type { Database } from '../../db/database.ts';
import { ofMerchant, type Scope } from '../../db/scope.ts';
import { merchantDeliveries } from '../webhook-endpoints/queries.ts';

/** `limit + 1` events, newest first, of one type or all, before (created_at, id) when given. */
export function selectRecentEvents(db: Database, scope: Scope, f: { type?: string; before?: { at: Date; id: string } }, limit: number) {
  let q = db.selectFrom('events').select(['id', 'type', 'created_at', 'location_id', 'payload']).where(ofMerchant('events', scope));
  if (f.type) q = q.where('type', '=', f.type);
  const before = f.before;
  if (before) q = q.where((eb) => eb.or([eb('created_at', '<', before.at), eb.and([eb('created_at', '=', before.at), eb('id', '<', before.id)])]));
  return q
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit + 1)
    .execute();
}

/** The deliveries of these events, oldest first, with their endpoint's URL. */
export function selectDeliveriesOfEvents(db: Database, scope: Scope, eventIds: string[]) {
  if (eventIds.length === 0) return Promise.resolve([]);
  return merchantDeliveries(db, scope)
    .innerJoin('webhook_endpoints as w', 'w.id', 'd.endpoint_id')
    .select(['d.id', 'd.event_id', 'd.endpoint_id', 'w.url as endpoint_url', 'd.status', 'd.attempts', 'd.last_status_code'])
    .where('d.event_id', 'in', eventIds)
    .orderBy('d.created_at')
    .orderBy('d.id')
    .execute();
}
