// The outbox: an event is written in the same transaction as the change it describes, and fanned
// out right there to the merchant's enabled endpoints that subscribe to its kind and location.
import { randomUUID } from 'node:crypto';
import { sql, type Expression, type SqlBool } from 'kysely';
import type { Database } from '../db/database.ts';
import { locationsAdmit } from '../db/scope.ts';

/**
 * Does the endpoint take the event: subscribed to its type, with locations that admit it (the
 * location rule: src/db/scope.ts). `endpoint` and `event` are the aliases of the two rows.
 */
export function endpointTakes(endpoint: string, event: string): Expression<SqlBool> {
  return sql<boolean>`(${sql.ref(`${event}.type`)} = any(${sql.ref(`${endpoint}.events`)}) and ${locationsAdmit(`${endpoint}.location_ids`, `${event}.location_id`)})`;
}

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
  const [id] = await emitEvents(trx, e.merchantId, [e], e.onlyEndpointId);
  return id;
}

export interface LocatedEvent {
  type: EventType | 'ping';
  locationId: string | null;
  /** The resource exactly as the API returns it. */
  object: unknown;
}

/**
 * Events of one merchant (emitEvent: one) in one statement whatever their number, fanned out to
 * their webhook endpoints in the same statement. Their ids ascend in the given order, so events
 * written within one millisecond still read back in that order by (created_at, id).
 */
export async function emitEvents(trx: Database, merchantId: string, events: LocatedEvent[], onlyEndpointId?: string): Promise<string[]> {
  if (events.length === 0) return [];
  const ids = events.map(() => randomUUID()).sort();
  const rows = events.map((e, i) => ({ id: ids[i], ord: i, type: e.type, location_id: e.locationId, payload: { object: e.object } }));
  // The endpoints each event goes to: the one named (the test action), or every enabled endpoint
  // subscribed to its type whose locations admit it (the location rule: src/db/scope.ts).
  const subscribed = onlyEndpointId
    ? sql<boolean>`endpoint.id = ${onlyEndpointId}::uuid`
    : sql<boolean>`endpoint.status = 'enabled' and ${endpointTakes('endpoint', 'event')}`;
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
       and ${subscribed}`.execute(trx);
  return ids;
}
