// Response schemas and error sets of the operator API (its own OpenAPI document).
import { Type } from 'typebox';
import type { ErrorCode } from '../http/errors.ts';
import { Nullable, Timestamp, Uuid, WITH_BODY, component } from '../http/schemas.ts';
import { Delivery, Endpoint } from '../modules/webhook-endpoints/schemas.ts';
import { ApiKey } from '../modules/api-keys/schemas.ts';

export const tags = ['Operator'];

const ALWAYS: ErrorCode[] = ['unauthorized', 'internal_error', 'service_unavailable'];
/** An id in the path: an unknown merchant, or a record it does not have. */
const WITH_ID: ErrorCode[] = ['not_found'];
/** A POST without a body schema (an action): a body, when sent, must still be JSON (nothing to validate). */
const ACTION: ErrorCode[] = WITH_BODY.filter((code) => code !== 'validation_failed');

/** The problems an operator route can answer, from its shape: an id in the path, a body, or an action's POST. */
export function errorsOf(method: string, path: string, hasBody: boolean): ErrorCode[] {
  const input = hasBody ? WITH_BODY : method === 'POST' ? ACTION : [];
  return [...ALWAYS, ...(path.includes('/:') ? WITH_ID : []), ...input];
}

/** A list with paging under /merchants/:merchant_id. */
export const OP_LIST: ErrorCode[] = [...ALWAYS, ...WITH_ID, 'malformed_request', 'validation_failed'];

export const MerchantSchema = component('Merchant', Type.Object({ id: Uuid(), name: Type.String(), currency: Type.String({ description: 'ISO 4217 code.' }) }));
export const PortalUserSchema = component('PortalUser', Type.Object({ id: Uuid(), email: Type.String() }));
export const ApiKeySchema = component('ApiKey', ApiKey);
export const NewApiKeySchema = component(
  'NewApiKey',
  Type.Object({ ...ApiKey.properties, secret: Type.String({ description: 'The key itself: shown once, store it now.' }) }),
);
export const EndpointSchema = component('WebhookEndpoint', Endpoint);
export const NewEndpointSchema = component(
  'NewWebhookEndpoint',
  Type.Object({ ...Endpoint.properties, signing_secret: Type.String({ description: 'Verifies the signatures.' }) }),
);
export const DeliverySchema = component('WebhookDelivery', Delivery);
export const AttemptSchema = component(
  'WebhookAttempt',
  Type.Object({
    id: Uuid(),
    attempt: Type.Integer(),
    status_code: Nullable(Type.Integer()),
    duration_ms: Type.Integer(),
    response_excerpt: Nullable(Type.String()),
    error: Nullable(Type.String()),
    created_at: Timestamp(),
  }),
);
const SyncOutcome = component(
  'SyncOutcome',
  Type.Object({ created: Type.Integer(), updated: Type.Integer(), ids: Type.Record(Type.String(), Uuid(), { description: 'external_id → id' }) }),
);
export const SyncResultSchema = component(
  'SyncResult',
  Type.Object({ products: SyncOutcome, collections: SyncOutcome, social_videos: SyncOutcome, media_assets: SyncOutcome }),
);
