// Webhook endpoints, deliveries and attempts as the portal shows them.
import { Type, type Static } from 'typebox';
import { LocationRestriction } from '../../http/location-restriction.ts';
import { Enum, Literals, Nullable, Timestamp, Uuid } from '../../http/schemas.ts';
import { EVENT_TYPES } from '../../events/outbox.ts';

export const Endpoint = Type.Object({
  id: Uuid(),
  url: Type.String(),
  description: Nullable(Type.String()),
  events: Type.Array(Enum(EVENT_TYPES)),
  location_ids: Nullable(Type.Array(Uuid())),
  status: Type.Union([Type.Literal('enabled'), Type.Literal('disabled')]),
  created_at: Timestamp(),
  updated_at: Timestamp(),
});

export type Endpoint = Static<typeof Endpoint>;

/** The portal's view of an endpoint: why and since when it is disabled (null while it is enabled). */
export const EndpointState = Type.Object({
  ...Endpoint.properties,
  disabled: Nullable(
    Type.Object({
      /** gone: a delivery was answered 410 Gone; manual: disabled in the portal or the operator API. */
      reason: Type.Union([Type.Literal('gone'), Type.Literal('manual')]),
      at: Timestamp(),
    }),
  ),
});
export type EndpointState = Static<typeof EndpointState>;

const strict = { additionalProperties: false } as const;
const EndpointFields = {
  url: Type.String({
    minLength: 1,
    maxLength: 2048,
    description:
      'An https URL of a public host, stored and echoed exactly as sent, so written as it is connected to: no whitespace, control characters or backslash; the host as the URL standard reads it (up to letter case and the punycode form of a Unicode name); no port 0; labels of at most 63 and a host of at most 253 characters.',
  }),
  events: Type.Array(Literals(EVENT_TYPES), { minItems: 1, maxItems: EVENT_TYPES.length, uniqueItems: true }),
  description: Nullable(Type.String({ maxLength: 500 })),
};

/** The body that creates an endpoint (operator API and portal). */
export const EndpointBody = Type.Object(
  { url: EndpointFields.url, events: EndpointFields.events, location_ids: LocationRestriction, description: Type.Optional(EndpointFields.description) },
  strict,
);
export type EndpointBody = Static<typeof EndpointBody>;

/** The body that changes an endpoint: any of the create fields, and its status. */
export const EndpointPatch = Type.Object(
  {
    url: Type.Optional(EndpointFields.url),
    events: Type.Optional(EndpointFields.events),
    location_ids: LocationRestriction,
    description: Type.Optional(EndpointFields.description),
    status: Type.Optional(Type.Union([Type.Literal('enabled'), Type.Literal('disabled')])),
  },
  strict,
);
export type EndpointPatch = Static<typeof EndpointPatch>;

export const EndpointHealth = Type.Object({
  deliveries_24h: Type.Integer(),
  delivered_24h: Type.Integer(),
  failed_24h: Type.Integer(),
  /** delivered / (delivered + failed) over the last 24 h; null when none finished. */
  success_rate: Nullable(Type.Number()),
  last_failure: Nullable(
    Type.Object({
      at: Timestamp(),
      delivery_id: Uuid(),
      status_code: Nullable(Type.Integer()),
      error: Nullable(Type.String()),
      response_excerpt: Nullable(Type.String()),
    }),
  ),
});
export type EndpointHealth = Static<typeof EndpointHealth>;

export const DeliveryStatus = Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')]);

export const Delivery = Type.Object({
  id: Uuid(),
  event_id: Uuid(),
  event_type: Enum([...EVENT_TYPES, 'ping']),
  status: DeliveryStatus,
  attempts: Type.Integer(),
  last_status_code: Nullable(Type.Integer()),
  next_attempt_at: Nullable(Timestamp()),
  created_at: Timestamp(),
  updated_at: Timestamp(),
});
export type Delivery = Static<typeof Delivery>;

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
