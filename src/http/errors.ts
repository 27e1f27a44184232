// RFC 9457 problem details: one error type, one table of codes, one way to render them.
import type { FastifyReply, FastifyRequest } from 'fastify';

/** The `code` of one entry of `errors[]`: what is wrong with that one field. */
export const FIELD_ERROR_CODES = {
  required: 'The field is missing (or, for an adjustment row, neither variant_id nor sku is given).',
  unknown_field: 'The field is not part of this request; unknown fields are refused, not ignored.',
  invalid_type: 'The value has the wrong JSON type.',
  invalid_format: 'The value does not have the required format (uuid, date-time, https URL, money with at most 2 decimals…).',
  invalid_value: 'The value is not one of the allowed values; the message lists them.',
  out_of_range: 'A number outside its range (an adjustment of 0, a limit above 250, an order total too large…).',
  too_short: 'A string shorter than its minimum length.',
  too_long: 'A string longer than its maximum length.',
  too_few: 'A list with fewer items than required (a product must keep at least one variant).',
  too_many: 'A list with more items than allowed.',
  duplicate: 'A value repeated where each must be unique (a list item, or a SKU within one request).',
  one_of: 'Exactly one of two fields must be given (video_url or video_asset_id).',
  unknown_id: "An id that is unknown, belongs to another merchant, or is hidden by the key's locations.",
  unknown_sku: "The SKU matches none of the merchant's variants.",
  ambiguous_sku: 'The SKU matches several variants; send variant_id.',
  mismatch: "Two fields of one row disagree (the sku is not the given variant's).",
  taken: 'The value is already used by another record (a native SKU, a portal email).',
  negative_on_hand: 'The adjustment would lower on_hand below zero.',
  exceeds_fulfillable: 'The quantity is more than the line item still has to fulfil.',
  insufficient_inventory: 'The quantity is more than is available for a deny-policy variant (order intake).',
  location_forbidden: "The row names a location outside the key's locations.",
  forbidden_address: 'The URL points at a private, loopback or link-local address.',
  invalid_text: 'A string (or a key or string inside a free-form value) holds a NUL (U+0000) or an unpaired UTF-16 surrogate, which cannot be stored as given.',
  too_deep: 'A free-form value nests deeper than 32 levels.',
  invalid: 'Any other rule.',
} as const;

export type FieldErrorCode = keyof typeof FIELD_ERROR_CODES;

export interface FieldError {
  /** JSON pointer into the request (body, query or header). */
  path: string;
  message: string;
  code: FieldErrorCode;
}

export const ERROR_CODES = {
  malformed_request: { status: 400, title: 'Malformed request' },
  unauthorized: { status: 401, title: 'Unauthorized' },
  insufficient_scope: { status: 403, title: 'Insufficient scope' },
  location_forbidden: { status: 403, title: 'Location forbidden' },
  forbidden: { status: 403, title: 'Forbidden' },
  not_found: { status: 404, title: 'Not found' },
  read_only_record: { status: 409, title: 'Read-only record' },
  idempotency_in_progress: { status: 409, title: 'Idempotent request in progress' },
  invalid_state: { status: 409, title: 'Invalid state' },
  cursor_expired: { status: 410, title: 'Cursor expired' },
  payload_too_large: { status: 413, title: 'Payload too large' },
  unsupported_media_type: { status: 415, title: 'Unsupported media type' },
  validation_failed: { status: 422, title: 'Validation failed' },
  insufficient_inventory: { status: 422, title: 'Insufficient inventory' },
  idempotency_key_reused: { status: 422, title: 'Idempotency key reused' },
  rate_limited: { status: 429, title: 'Too many requests' },
  request_timeout: { status: 408, title: 'Request timeout' },
  uri_too_long: { status: 414, title: 'URI too long' },
  headers_too_large: { status: 431, title: 'Request header fields too large' },
  internal_error: { status: 500, title: 'Internal server error' },
  service_unavailable: { status: 503, title: 'Service unavailable' },
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

export const ERROR_DESCRIPTIONS: Record<ErrorCode, string> = {
  malformed_request: 'The body is not valid JSON, a cursor is invalid or was made for other filters, or the Idempotency-Key header is malformed.',
  unauthorized: 'No API key, an unknown or revoked key, or a malformed Authorization header.',
  insufficient_scope: 'The key lacks the scope the endpoint needs; `detail` names it.',
  location_forbidden: "The request names a fulfillment location outside the key's locations.",
  forbidden: 'The session may not do this (portal: missing or wrong CSRF token).',
  not_found: "Unknown id, another merchant's id, or a record hidden by the key's location restriction.",
  read_only_record: 'The record comes from a connected source and cannot be changed through this API.',
  idempotency_in_progress: 'A request with the same Idempotency-Key is still being processed; retry after `Retry-After` seconds.',
  invalid_state: 'The record is in a state that does not allow this change (e.g. fulfilling a cancelled order).',
  cursor_expired:
    'The event-feed position (or cursor) is older than the feed keeps events (EVENT_RETENTION_DAYS, default 30): backfill from the lists, then follow the feed from its start.',
  payload_too_large: 'The body is larger than 1 MiB.',
  unsupported_media_type: 'Writes need `Content-Type: application/json`.',
  validation_failed: 'The body or query breaks a rule; `errors[]` lists each field with a JSON pointer.',
  insufficient_inventory: 'Order intake for a `deny`-policy variant with too little available stock.',
  idempotency_key_reused: 'The Idempotency-Key was used before with a different payload (or by an API key restricted to other locations).',
  rate_limited: 'Too many requests for this key; wait `Retry-After` seconds.',
  request_timeout: 'The request (headers and body) did not arrive in time; the connection is closed.',
  uri_too_long: 'The URL is longer than 16 KB (the request line and headers together may not exceed it); the connection is closed.',
  headers_too_large: 'The request headers (with the request line) are larger than 16 KB; the connection is closed.',
  internal_error:
    'Something failed on our side; a write may or may not have been applied (e.g. the database connection was lost while it was committing: the detail says so). Retry writes with the same Idempotency-Key (applied once either way); read back a write sent without one before sending it again.',
  service_unavailable:
    "The database is unreachable or dropped the connection mid-request, this process is shutting down, or this merchant's requests already in progress kept a new one waiting 10 s (MERCHANT_CONCURRENCY); nothing was applied. Retry after `Retry-After` seconds (writes with the same Idempotency-Key).",
};

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly errors: FieldError[] | undefined;
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, detail: string, errors?: FieldError[], headers: Record<string, string> = {}) {
    super(detail);
    this.code = code;
    this.status = ERROR_CODES[code].status;
    this.errors = errors;
    this.headers = headers;
  }
}

/**
 * The database is unreachable or dropped the connection: the request rolled back, so the answer is
 * 503, which promises that nothing was applied (contract §2). Unless the connection was lost while
 * the write was committing (`err` says so, src/db/prepared.ts): then nobody knows whether it was
 * applied, which a 503 must not claim, so it is a 500 whose detail says what to do.
 */
export const databaseFailure = (err?: unknown) =>
  (err as { commitOutcomeUnknown?: true } | undefined)?.commitOutcomeUnknown
    ? new AppError(
        'internal_error',
        'The database dropped the connection while the write was committing: it may have been applied. Retry with the same Idempotency-Key to get its outcome (applied once either way); without one, read the record before writing again.',
      )
    : new AppError(
        'service_unavailable',
        poolWaitedOut(err)
          ? 'No database connection came free within 5 s: every one is busy, or the database is slow to answer; nothing was applied. Retry after `Retry-After` seconds (writes with the same Idempotency-Key).'
          : 'The database is unreachable or dropped the connection; nothing was applied. Retry (with the same Idempotency-Key for writes).',
        undefined,
        {
          'Retry-After': '1',
        },
      );

/** pg's pool gave up waiting for a connection (connectionTimeoutMillis, src/db/database.ts): busy, not down. */
function poolWaitedOut(err: unknown): boolean {
  for (let e = err, depth = 0; e instanceof Error && depth < 3; e = e.cause, depth++) {
    if (e.message.startsWith('timeout exceeded when trying to connect')) return true;
  }
  return false;
}

export const notFound = (what = 'record') => new AppError('not_found', `No such ${what}.`);

/** `value`, or a 404 `not_found` naming `what` when there is none. */
export function found<T>(value: T | null | undefined, what: string): T {
  if (value === null || value === undefined) throw notFound(what);
  return value;
}

export function invalid(path: string, message: string, code: FieldErrorCode = 'invalid'): AppError {
  return new AppError('validation_failed', `${path || 'body'}: ${message}`, [{ path, message, code }]);
}

/** The most field errors one answer lists, whoever found them (the validator or a service). */
export const MAX_FIELD_ERRORS = 100;

export function invalidFields(errors: FieldError[]): AppError {
  return fieldsProblem('validation_failed', errors);
}

/**
 * A problem naming fields, its detail their pointers and messages. Capped as the validator's
 * answers are: a service's checks once listed 1,000 unknown ids, with a 64,000-character detail.
 */
export function fieldsProblem(code: 'validation_failed' | 'insufficient_inventory', errors: FieldError[]): AppError {
  const listed = errors.slice(0, MAX_FIELD_ERRORS);
  // The body itself (pointer "") is named by its message ("body must be object"), not ": body …".
  const detail = listed.map((e) => (e.path ? `${e.path}: ${e.message}` : e.message)).join('; ');
  if (errors.length === listed.length) return new AppError(code, detail, errors);
  return new AppError(code, `More than ${MAX_FIELD_ERRORS} fields are invalid; the first ${MAX_FIELD_ERRORS} are listed. ${detail}`, listed);
}

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ErrorCode;
  request_id: string;
  errors?: FieldError[];
}

export function problem(err: AppError, requestId: string): Problem {
  const body: Problem = {
    type: `/errors#${err.code}`,
    title: ERROR_CODES[err.code].title,
    status: err.status,
    detail: err.message,
    code: err.code,
    request_id: requestId,
  };
  if (err.errors) body.errors = err.errors;
  return body;
}

/** The 404 of a path no route takes (the app's, and the integration API's, where the key is known first). */
export function noRoute(req: FastifyRequest, reply: FastifyReply) {
  const err = new AppError('not_found', `No route ${req.method} ${req.url.split('?')[0]}.`);
  return reply.code(404).type('application/problem+json').send(problem(err, req.id));
}
