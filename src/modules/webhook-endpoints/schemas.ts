// Webhook endpoints, deliveries and attempts as the portal shows them.
import { Type, type Static } from 'typebox';
import { Nullable, Timestamp, Uuid } from '../../http/schemas.ts';

export const Endpoint = Type.Object({
  id: Uuid(),
  url: Type.String(),
  description: Nullable(Type.String()),
  events: Type.Array(Type.String()),
  location_ids: Nullable(Type.Array(Uuid())),
  status: Type.Union([Type.Literal('enabled'), Type.Literal('disabled')]),
  created_at: Timestamp(),
  updated_at: Timestamp(),
});

export const EndpointHealth = Type.Object({
  deliveries_24h: Type.Integer(),
  delivered_24h: Type.Integer(),
  failed_24h: Type.Integer(),
  /** delivered / (delivered + failed) over the last 24 h; null when none finished. */
  success_rate: Nullable(Type.Number()),
  last_failure: Nullable(
    Type.Object({ at: Timestamp(), delivery_id: Uuid(), status_code: Nullable(Type.Integer()), error: Nullable(Type.String()), response_excerpt: Nullable(Type.String()) }),
  ),
});
export type EndpointHealth = Static<typeof EndpointHealth>;

export type Endpoint = Static<typeof Endpoint>;

export const DeliveryStatus = Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')]);

export const Delivery = Type.Object({
  id: Uuid(),
  event_id: Uuid(),
  event_type: Type.String(),
  status: DeliveryStatus,
  attempts: Type.Integer(),
  last_status_code: Nullable(Type.Integer()),
  next_attempt_at: Nullable(Timestamp()),
  created_at: Timestamp(),
  updated_at: Timestamp(),
});

export const PortalDelivery = Type.Object({
  ...Delivery.properties,
  resent_from: Nullable(Uuid()),
  last_error: Nullable(Type.String({ description: 'Error of the latest attempt (no HTTP answer: DNS, connection, timeout)' })),
});
export type PortalDelivery = Static<typeof PortalDelivery>;

export const Attempt = Type.Object({
  id: Uuid(),
  attempt: Type.Integer(),
  created_at: Timestamp(),
  status_code: Nullable(Type.Integer()),
  duration_ms: Type.Integer(),
  error: Nullable(Type.String()),
  response_excerpt: Nullable(Type.String()),
  request: Nullable(Type.Object({ method: Type.Literal('POST'), url: Type.String(), headers: Type.Record(Type.String(), Type.String()), body: Type.String() })),
});
export type Attempt = Static<typeof Attempt>;

export const DeliveryDetail = Type.Object({
  ...PortalDelivery.properties,
  endpoint: Type.Object({ id: Uuid(), url: Type.String() }),
  attempts_log: Type.Array(Attempt),
});
export type DeliveryDetail = Static<typeof DeliveryDetail>;
