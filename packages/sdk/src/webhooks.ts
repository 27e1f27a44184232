// Webhook verification: HMAC-SHA256 over `${timestamp}.${raw body}` (Web Crypto, constant time),
// a timestamp tolerance, any of the header's `v1=` signatures (two during a secret rotation),
// any of the receiver's secrets; then a typed event discriminated by `type`.
import type { webhooks } from './generated/openapi.js';
import type { Collection, Fulfillment, InventoryRow, Named, Order, Product, SocialVideo } from './types.js';

export interface EventEnvelope<T extends string, O> {
  id: string;
  type: T;
  created_at: string;
  merchant_id: string;
  location_id: string | null;
  /** The event's place in the event feed, when the API sends it. */
  position?: string;
  data: { object: O };
}

export type PingObject = Named<'PingObject', { endpoint_id: string; message: string }>;

/** What each event type carries when the document has no `webhooks` section to say it. */
interface EventObjects {
  'order.created': Order;
  'order.updated': Order;
  'order.cancelled': Order;
  'fulfillment.created': Fulfillment;
  'fulfillment.updated': Fulfillment;
  'inventory.updated': InventoryRow;
  'product.created': Product;
  'product.updated': Product;
  'collection.created': Collection;
  'collection.updated': Collection;
  'social_video.created': SocialVideo;
  'social_video.updated': SocialVideo;
  ping: PingObject;
}
type ResourceEvent = { [T in keyof EventObjects]: EventEnvelope<T, EventObjects[T]> }[keyof EventObjects];

type DocumentEvent = {
  [N in keyof webhooks]: webhooks[N] extends { post: { requestBody?: { content: { 'application/json': infer B } } } } ? B : never;
}[keyof webhooks];

/** A verified webhook event; `switch (event.type)` narrows `event.data.object`. */
export type WebhookEvent = string extends keyof webhooks ? ResourceEvent : DocumentEvent;
export type WebhookEventType = WebhookEvent['type'];

/** Why a delivery was refused; `missing_secret`: no secret given, or an empty one (a configuration error, whatever the delivery). */
export type VerificationFailure =
  'missing_secret' | 'missing_header' | 'timestamp_outside_tolerance' | 'signature_mismatch' | 'malformed_body' | 'header_mismatch';

export class WebhookVerificationError extends Error {
  readonly name = 'WebhookVerificationError';
  readonly reason: VerificationFailure;
  constructor(reason: VerificationFailure, message: string) {
    super(message);
    this.reason = reason;
  }
}

export type HeaderBag = Headers | Record<string, string | string[] | undefined>;

export interface VerifyOptions {
  /** The request body exactly as received (bytes or the undecoded text). */
  rawBody: string | Uint8Array;
  headers: HeaderBag;
  /** The endpoint's signing secret; during a rotation on your side, pass both. None or an empty one: `missing_secret`. */
  secret: string | readonly string[];
  /** Largest accepted distance between the timestamp and now (default 300 s). */
  toleranceSeconds?: number;
  /** Milliseconds since the epoch (tests inject a fake). */
  now?: () => number;
}

const encoder = new TextEncoder();

function header(headers: HeaderBag, name: string): string | null {
  if (typeof Headers !== 'undefined' && headers instanceof Headers) return headers.get(name);
  for (const [k, v] of Object.entries(headers)) {
    // Several lines of one header are one value joined by ", ", as Node and Headers join them.
    if (k.toLowerCase() === name) return Array.isArray(v) ? (v.length > 0 ? v.join(', ') : null) : (v ?? null);
  }
  return null;
}

function hexBytes(hex: string): Uint8Array<ArrayBuffer> | null {
  if (hex.length === 0 || hex.length % 2 !== 0 || !/^[0-9a-f]+$/i.test(hex)) return null;
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

/** Verifies a delivery and returns its event; throws WebhookVerificationError otherwise. */
export async function verifyWebhook(options: VerifyOptions): Promise<WebhookEvent> {
  // Web Crypto refuses an empty HMAC key (a DataError); an unset secret is a mistake to name, not to skip.
  const given: readonly unknown[] = typeof options.secret === 'string' ? [options.secret] : Array.isArray(options.secret) ? options.secret : [];
  const secrets = given.filter((s): s is string => typeof s === 'string' && s !== '');
  if (secrets.length === 0 || secrets.length < given.length) {
    throw new WebhookVerificationError('missing_secret', 'no signing secret to verify with: `secret` is empty or holds an empty one');
  }
  const timestamp = header(options.headers, 'x-service-webhook-timestamp');
  const signature = header(options.headers, 'x-service-webhook-signature');
  if (timestamp === null || signature === null)
    throw new WebhookVerificationError('missing_header', 'X-Service-Webhook-Timestamp and X-Service-Webhook-Signature are required');
  const seconds = /^\d+$/.test(timestamp) ? Number(timestamp) : NaN;
  const nowSeconds = (options.now ?? Date.now)() / 1000;
  const tolerance = options.toleranceSeconds ?? 300;
  if (!Number.isFinite(seconds) || Math.abs(nowSeconds - seconds) > tolerance) {
    throw new WebhookVerificationError('timestamp_outside_tolerance', `timestamp ${timestamp} is more than ${tolerance} s from now`);
  }

  const body = typeof options.rawBody === 'string' ? encoder.encode(options.rawBody) : options.rawBody;
  const signed = concat(encoder.encode(`${timestamp}.`), body);
  const signatures = signature
    // Signatures are separated by white space, or by commas where repeated header lines were joined.
    .split(/[\s,]+/)
    .filter((part) => part.startsWith('v1='))
    .map((part) => hexBytes(part.slice(3)))
    .filter((b): b is Uint8Array<ArrayBuffer> => b !== null);
  let valid = false;
  for (const secret of secrets) {
    const key = await globalThis.crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']);
    // subtle.verify compares in constant time.
    for (const sig of signatures) if (await globalThis.crypto.subtle.verify('HMAC', key, sig, signed)) valid = true;
  }
  if (!valid) throw new WebhookVerificationError('signature_mismatch', 'no v1 signature matches the signing secret');

  let event: unknown;
  try {
    event = JSON.parse(new TextDecoder().decode(body));
  } catch {
    throw new WebhookVerificationError('malformed_body', 'the body is not JSON');
  }
  if (!isEvent(event)) throw new WebhookVerificationError('malformed_body', 'the body is not an event envelope');
  const id = header(options.headers, 'x-service-webhook-id');
  const type = header(options.headers, 'x-service-webhook-event');
  if ((id !== null && id !== event.id) || (type !== null && type !== event.type)) {
    throw new WebhookVerificationError('header_mismatch', 'X-Service-Webhook-Id / -Event disagree with the body');
  }
  return event;
}

// The signature proves the body is the API's; this checks the envelope's shape before typing it.
function isEvent(v: unknown): v is WebhookEvent {
  if (typeof v !== 'object' || v === null) return false;
  const e: { id?: unknown; type?: unknown; data?: unknown } = v;
  return typeof e.id === 'string' && typeof e.type === 'string' && typeof e.data === 'object' && e.data !== null && 'object' in e.data;
}
