// Event-feed queries. A page is an index range scan of events_feed (merchant_id, position_xid, seq)
// bounded by the limit; see docs/events.md for why the horizon makes it gap-free.
import { sql } from 'kysely';
import type { Database } from '../../db/database.ts';
import { atVisibleLocation, ofMerchant, type Scope } from '../../db/scope.ts';
import type { Position, StoredEvent } from '../../events/envelope.ts';

const COLUMNS = ['id', 'type', 'created_at', 'merchant_id', 'location_id', 'payload', 'position_xid', 'seq'] as const;

/**
 * Events after `after`, in feed order, whose position is below the oldest transaction still in
 * flight (pg_snapshot_xmin of this statement's snapshot): no commit can land behind them later.
 * Only events within the retention: one older is not served even while it is still stored (a kept
 * delivery keeps it), as a position at it answers 410 (positionState): following the feed from
 * its start must not lead to a position the next page refuses.
 */
export async function selectFeedPage(
  db: Database,
  scope: Scope,
  types: string[] | null,
  after: Position | null,
  limit: number,
  retentionDays: number,
): Promise<StoredEvent[]> {
  return feedPageQuery(db, scope, types, after, limit, retentionDays).execute();
}

/**
 * The page query itself (bench/feed-plan.ts explains it at 10,000 and 1,000,000 events). `types`:
 * the event types to return, null for every type but ping. Events bound to no location are seen by
 * every key; location-bound ones follow the location rule.
 */
export function feedPageQuery(db: Database, scope: Scope, types: string[] | null, after: Position | null, limit: number, retentionDays: number) {
  let q = db
    .selectFrom('events')
    .select(COLUMNS)
    .where(ofMerchant('events', scope))
    .where('type', '<>', 'ping')
    .where(sql<boolean>`position_xid < pg_snapshot_xmin(pg_current_snapshot())`)
    .where(sql<boolean>`created_at >= clock_timestamp() - make_interval(days => ${retentionDays})`);
  if (after) q = q.where(sql<boolean>`(position_xid, seq) > (${after.xid}::xid8, ${after.seq}::bigint)`);
  if (types) q = q.where('type', 'in', types);
  if (scope.locationIds !== null) q = q.where((eb) => eb.or([eb('location_id', 'is', null), atVisibleLocation('events.location_id', scope)]));
  return q.orderBy('position_xid').orderBy('seq').limit(limit);
}

export async function selectEvent(db: Database, scope: Scope, id: string): Promise<StoredEvent | undefined> {
  return db.selectFrom('events').select(COLUMNS).where(ofMerchant('events', scope)).where('id', '=', id).executeTakeFirst();
}

/** Whether a position is older than the feed keeps events: expired, purged, or never there. */
export async function positionState(db: Database, scope: Scope, at: Position, retentionDays: number): Promise<'kept' | 'expired' | 'unknown'> {
  const { rows } = await sql<{ expired: boolean | null; earlier: boolean; purgeable: boolean }>`
    select (select e.created_at < clock_timestamp() - make_interval(days => ${retentionDays})
              from events e
             where ${ofMerchant('e', scope)} and e.position_xid = ${at.xid}::xid8 and e.seq = ${at.seq}::bigint) as expired,
           exists (select 1 from events e
                    where ${ofMerchant('e', scope)} and (e.position_xid, e.seq) < (${at.xid}::xid8, ${at.seq}::bigint)
                      and e.created_at >= clock_timestamp() - make_interval(days => ${retentionDays})) as earlier,
           exists (select 1 from merchants m
                    where m.id = ${scope.merchantId}::uuid and m.created_at < clock_timestamp() - make_interval(days => ${retentionDays})) as purgeable`.execute(
    db,
  );
  const { expired, earlier, purgeable } = rows[0];
  // No event of the merchant has this position. Behind all its events within the retention, it may
  // be one the retention purge took: only if the merchant is older than the retention (a younger
  // one has had nothing purged), else it is simply not the merchant's (another merchant's, or made
  // up). Older events a kept delivery still references are not counted: the purge took the events
  // beside them (it counted them, and a purged position after one was 422 unknown_id).
  if (expired === null) return !earlier && purgeable ? 'expired' : 'unknown';
  return expired ? 'expired' : 'kept';
}
