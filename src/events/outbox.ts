// The outbox: an event is written in the same transaction as the change it describes, and fanned
// out right there to the merchant's enabled endpoints that subscribe to its kind and location.
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Database } from '../db/database.ts';

/** The events about orders, fulfillments and inventory (the warehouse side, bound to a location). */
export const WAREHOUSE_EVENTS = [
  'order.created',
  'order.updated',
  'order.cancelled',
  'fulfillment.created',
  'fulfillment.updated',
  'inventory.updated',
] as const;

/** Every event type, in the order the API reference lists them. */
export const EVENT_TYPES = [
  ...WAREHOUSE_EVENTS,
  'product.created',
  'product.updated',
  'collection.created',
  'collection.updated',
  'social_video.created',
  'social_video.updated',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

export interface NewEvent {
  merchantId: string;
  type: EventType | 'ping';
  /** Set for order, fulfillment and inventory events: endpoints with a location filter use it. */
  locationId: string | null;
  /** The resource exactly as the API returns it. */
  object: unknown;
  /** Deliver only to this endpoint (the test action), whatever it subscribes to. */
  onlyEndpointId?: string;
}

export async function emitEvent(trx: Database, e: NewEvent): Promise<string> {
  const event = await trx
    .insertInto('events')
    .values({ merchant_id: e.merchantId, type: e.type, location_id: e.locationId, payload: JSON.stringify({ object: e.object }) })
    .returning(['id'])
    .executeTakeFirstOrThrow();
  let endpoints = trx
    .selectFrom('webhook_endpoints')
    .select([sql<string>`${e.merchantId}::uuid`.as('merchant_id'), 'id as endpoint_id', sql<string>`${event.id}::uuid`.as('event_id')])
    .where('merchant_id', '=', e.merchantId);
  if (e.onlyEndpointId) {
    endpoints = endpoints.where('id', '=', e.onlyEndpointId);
  } else {
    endpoints = endpoints
      .where('status', '=', 'enabled')
      .where(sql<boolean>`${e.type} = any(events)`)
      .where(sql<boolean>`(location_ids is null or ${e.locationId}::uuid is null or ${e.locationId}::uuid = any(location_ids))`);
  }
  await trx
    .insertInto('webhook_deliveries')
    .columns(['merchant_id', 'endpoint_id', 'event_id'])
    .expression(endpoints as never)
    .execute();
  return event.id;
}

export interface LocatedEvent {
  type: EventType;
  locationId: string | null;
  /** The resource exactly as the API returns it. */
  object: unknown;
}

/**
 * Several events of one merchant in one statement whatever their number, fanned out in the same
 * statement (the same endpoint rule as emitEvent). Their ids ascend in the given order, so events
 * written within one millisecond still read back in that order by (created_at, id).
 */
export async function emitEvents(trx: Database, merchantId: string, events: LocatedEvent[]): Promise<void> {
  if (events.length === 0) return;
  const ids = events.map(() => randomUUID()).sort();
  const rows = events.map((e, i) => ({ id: ids[i], ord: i, type: e.type, location_id: e.locationId, payload: { object: e.object } }));
  await sql`
    with event as (
      insert into events (id, merchant_id, type, location_id, payload)
      select e.id, ${merchantId}::uuid, e.type, e.location_id, e.payload
        from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as e(id uuid, ord int, type text, location_id uuid, payload jsonb)
       order by e.ord
      returning id, type, location_id
    )
    insert into webhook_deliveries (merchant_id, endpoint_id, event_id)
    select ${merchantId}::uuid, endpoint.id, event.id
      from event
      join webhook_endpoints endpoint
        on endpoint.merchant_id = ${merchantId}::uuid
       and endpoint.status = 'enabled'
       and event.type = any(endpoint.events)
       and (endpoint.location_ids is null or event.location_id is null or event.location_id = any(endpoint.location_ids))`.execute(trx);
}
