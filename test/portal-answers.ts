// Types of the portal's JSON answers (/portal/api), by route. The portal is not in a published
// document: its routes declare TypeBox response schemas (src/portal/schemas.ts, the same types the
// front end imports), and this table names, for each route a test reads, the Static type of that
// schema. `portalJson(res, 200, 'GET /portal/api/overview')` (test/helpers.ts) checks the route.
import type * as Portal from '../src/portal/schemas.ts';
import type { Attempt } from '../src/modules/webhook-endpoints/schemas.ts';

type Envelope<T> = { data: T; request_id: string };
type Page<T> = { data: T[]; request_id: string; next_before: string | null };
type AttemptRow = Pick<Attempt, 'id' | 'attempt' | 'status_code' | 'duration_ms' | 'response_excerpt' | 'error' | 'created_at'>;

export interface PortalAnswers {
  'POST /portal/api/login': Envelope<Portal.SessionInfo>;
  'POST /portal/api/logout': Envelope<{ signed_out: boolean }>;
  'GET /portal/api/session': Envelope<Portal.SessionInfo | null>;
  'GET /portal/api/meta': Envelope<Portal.Meta>;
  'GET /portal/api/locations': Envelope<Portal.Location[]>;
  'GET /portal/api/api-keys': Envelope<Portal.ApiKey[]>;
  'POST /portal/api/api-keys': Envelope<Portal.NewApiKey>;
  'POST /portal/api/api-keys/:id/revoke': Envelope<Portal.ApiKey>;
  'GET /portal/api/webhook-endpoints': Envelope<Portal.EndpointWithHealth[]>;
  'POST /portal/api/webhook-endpoints': Envelope<Portal.NewEndpoint>;
  'GET /portal/api/webhook-endpoints/:id': Envelope<Portal.EndpointWithHealth>;
  'PATCH /portal/api/webhook-endpoints/:id': Envelope<Portal.Endpoint>;
  'DELETE /portal/api/webhook-endpoints/:id': Envelope<Portal.Endpoint>;
  'GET /portal/api/webhook-endpoints/:id/secret': Envelope<{ signing_secret: string }>;
  'POST /portal/api/webhook-endpoints/:id/rotate-secret': Envelope<Portal.NewEndpoint>;
  'GET /portal/api/webhook-endpoints/:id/deliveries': Page<Portal.PortalDelivery>;
  'GET /portal/api/webhook-endpoints/:id/deliveries/:d': Envelope<Portal.DeliveryDetail>;
  'GET /portal/api/webhook-endpoints/:id/deliveries/:d/attempts': Envelope<AttemptRow[]>;
  'POST /portal/api/webhook-endpoints/:id/deliveries/:d/resend': Envelope<Portal.DeliveryDetail>;
  'POST /portal/api/webhook-endpoints/:id/test': Envelope<Portal.DeliveryDetail>;
  'GET /portal/api/request-log': Page<Portal.LoggedRequest>;
  'GET /portal/api/request-log/:request_id': Envelope<Portal.LoggedRequest>;
  'GET /portal/api/events': Page<Portal.LoggedEvent>;
  'GET /portal/api/overview': Envelope<Portal.Overview>;
}

export type PortalRoute = keyof PortalAnswers;
