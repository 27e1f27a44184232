// What an event looks like outside: the webhook body and the feed item are one envelope, with the
// event's opaque feed position, and product payloads narrowed to the reader's locations.
import { visibleAt } from '../db/scope.ts';

/** An events row as the feed and the webhook worker read it. */
export interface StoredEvent {
  id: string;
  type: string;
  created_at: Date;
  merchant_id: string;
  location_id: string | null;
  payload: unknown;
  /** xid8 and bigint, as decimal strings. */
  position_xid: string;
  seq: string;
}

export interface EventEnvelope {
  id: string;
  type: string;
  created_at: string;
  merchant_id: string;
  location_id: string | null;
  position: string;
  data: { object: unknown };
}

export interface Position {
  xid: string;
  seq: string;
}

// Fixed width, so positions compare as strings in feed order: 16 hex digits of position_xid, 16 of seq.
const WIDTH = 16;

export function encodePosition(p: Position): string {
  return BigInt(p.xid).toString(16).padStart(WIDTH, '0') + BigInt(p.seq).toString(16).padStart(WIDTH, '0');
}

export const POSITION_PATTERN = '^[0-9a-f]{32}$';

/**
 * The caller has checked POSITION_PATTERN. Null when a half is beyond PostgreSQL's bigint (a
 * leading hex digit 8–f): no event has such a position.
 */
export function decodePosition(position: string): Position | null {
  if (position[0] >= '8' || position[WIDTH] >= '8') return null;
  return { xid: BigInt(`0x${position.slice(0, WIDTH)}`).toString(), seq: BigInt(`0x${position.slice(WIDTH)}`).toString() };
}

export function eventEnvelope(event: StoredEvent, locationIds: string[] | null): EventEnvelope {
  return {
    id: event.id,
    type: event.type,
    created_at: event.created_at.toISOString(),
    merchant_id: event.merchant_id,
    location_id: event.location_id,
    position: encodePosition({ xid: event.position_xid, seq: event.seq }),
    data: { object: narrowToLocations(event.type, (event.payload as { object: unknown }).object, locationIds) },
  };
}

/**
 * Product payloads carry inventory per location: a reader limited to some locations (an endpoint
 * with a location filter, a location-restricted key) sees only theirs.
 */
export function narrowToLocations(type: string, object: unknown, locationIds: string[] | null): unknown {
  if (locationIds === null || !type.startsWith('product.') || !object || typeof object !== 'object') return object;
  const product = object as { variants?: { inventory?: { fulfillment_location_id: string }[] }[] };
  const reader = { locationIds };
  return {
    ...product,
    variants: (product.variants ?? []).map((v) => ({ ...v, inventory: visibleAt(reader, v.inventory ?? [], (i) => i.fulfillment_location_id) })),
  };
}
