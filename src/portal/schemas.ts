// Response schemas of the portal's JSON API (/portal/api). The routes declare them, so Fastify
// serialises exactly these shapes, and the front end (web/) imports the Static types from here
// (type-only): one definition for both sides.
import { Type, type Static, type TSchema } from 'typebox';
import { invalidFields } from '../http/errors.ts';
import { Nullable, Uuid } from '../http/schemas.ts';
import { isInstant } from '../http/validation.ts';
import { ApiKey } from '../modules/api-keys/schemas.ts';
import { RequestStats } from '../modules/request-log/schemas.ts';
import { Endpoint, EndpointHealth, EndpointState, PortalDelivery } from '../modules/webhook-endpoints/schemas.ts';

export const Envelope = <T extends TSchema>(data: T) => Type.Object({ data, request_id: Uuid() });
/** Rows per page of a newest-first portal list. */
export const PageLimit = Type.Integer({ minimum: 1, maximum: 100 });

/** `<created_at>_<id>` of the last row a newest-first page showed (its `next_before`); checkInstantBefore checks the instant. */
export const InstantBefore = Type.String({
  pattern: '^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$',
  maxLength: 61,
});

/** 422 for a `before` whose instant is no real one (the pattern lets 2026-13-45 through). */
export function checkInstantBefore(before: string | undefined): void {
  if (before && !isInstant(before.slice(0, 24))) {
    throw invalidFields([{ path: '/before', message: 'must be a next_before value from a previous page', code: 'invalid_format' }]);
  }
}

export const Page = <T extends TSchema>(item: T) => Type.Object({ data: Type.Array(item), request_id: Uuid(), next_before: Nullable(Type.String()) });

export const SessionInfo = Type.Object({
  user: Type.Object({ id: Uuid(), email: Type.String() }),
  merchant: Type.Object({ id: Uuid(), name: Type.String() }),
  csrf_token: Type.String(),
});

export const Meta = Type.Object({
  scopes: Type.Array(Type.String()),
  scope_descriptions: Type.Record(Type.String(), Type.String()),
  scope_aliases: Type.Record(Type.String(), Type.Array(Type.String())),
  warehouse_scopes: Type.Array(Type.String()),
  event_types: Type.Array(Type.String()),
  warehouse_events: Type.Array(Type.String()),
  request_log_retention_days: Type.Integer(),
});

export const Location = Type.Object({ id: Uuid(), name: Type.String() });

export const NewApiKey = Type.Object({ ...ApiKey.properties, secret: Type.String({ description: 'Shown once' }) });

export const EndpointWithHealth = Type.Object({ ...EndpointState.properties, health: EndpointHealth });
export const NewEndpoint = Type.Object({ ...Endpoint.properties, signing_secret: Type.String() });
export const SigningSecret = Type.Object({ signing_secret: Type.String() });

export const FailingDelivery = Type.Object({ ...PortalDelivery.properties, endpoint: Type.Object({ id: Uuid(), url: Type.String() }) });

export const Overview = Type.Object({
  keys: Type.Array(ApiKey),
  endpoints: Type.Array(EndpointWithHealth),
  failing_deliveries: Type.Array(FailingDelivery),
  /** How many deliveries are failed or retrying (failing_deliveries shows the latest 10); counted up to 1000. */
  failing_total: Type.Integer(),
  requests: RequestStats,
});

export { ApiKey } from '../modules/api-keys/schemas.ts';
export { LoggedEvent } from '../modules/event-log/schemas.ts';
export { LoggedRequest, RequestStats } from '../modules/request-log/schemas.ts';
export { DeliveryDetail, Endpoint, PortalDelivery } from '../modules/webhook-endpoints/schemas.ts';

export type SessionInfo = Static<typeof SessionInfo>;
export type Meta = Static<typeof Meta>;
export type Location = Static<typeof Location>;
export type NewApiKey = Static<typeof NewApiKey>;
export type EndpointWithHealth = Static<typeof EndpointWithHealth>;
export type NewEndpoint = Static<typeof NewEndpoint>;
export type FailingDelivery = Static<typeof FailingDelivery>;
export type Overview = Static<typeof Overview>;
