export {
  createClient,
  type CallOptions,
  type Client,
  type ClientOptions,
  type EventFeed,
  type FeedEvent,
  type FeedOptions,
  type ResponseInfo,
  type RetryOptions,
} from './client.js';
export { ApiError, NetworkError, isApiError, type AnyErrorCode, type FieldError, type Problem } from './errors.js';
export {
  verifyWebhook,
  WebhookVerificationError,
  type EventEnvelope,
  type HeaderBag,
  type PingObject,
  type VerificationFailure,
  type VerifyOptions,
  type WebhookEvent,
  type WebhookEventType,
} from './webhooks.js';
export { OPERATIONS, DOCUMENT_VERSION, type OperationId, type ErrorCode } from './generated/operations.js';
export type * from './generated/schemas.js';
export type { components, operations, paths, webhooks } from './generated/openapi.js';
export type {
  Collection,
  Data,
  Fulfillment,
  Input,
  InventoryRow,
  ListItem,
  ListOperationId,
  Location,
  Order,
  PathParams,
  Product,
  QueryParams,
  RequestBody,
  Response,
  SocialVideo,
} from './types.js';
