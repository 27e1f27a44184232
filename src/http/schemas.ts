// Schema pieces shared by routes: ids, enums, named components, envelopes, problems.
// A route's TypeBox schema is its validation, its TypeScript type (Static<>) and its part of the
// OpenAPI document; the marks below only tell the document builder (src/openapi/) how to name it.
import { Type, type TSchema } from 'typebox';
import { ERROR_CODES, FIELD_ERROR_CODES, type ErrorCode, type FieldErrorCode } from './errors.ts';
import { ListMeta } from './paging.ts';

/** Marks a schema as the named component `name` of the document (`#/components/schemas/<name>`). */
export const component = <T extends TSchema>(name: string, schema: T): T => ({ ...schema, 'x-component': name });

/** A string enum, published as `enum` (so renderers and generators show the values). */
export const Enum = <const V extends readonly string[]>(values: V, options: { description?: string; default?: V[number] } = {}) =>
  Type.Unsafe<V[number]>({ type: 'string', enum: [...values], ...options });

/** One of these strings as `anyOf` of `const`s (how scopes and event types are published), typed as their union. */
export const Literals = <const V extends readonly string[]>(values: V, options: { description?: string } = {}) =>
  Type.Unsafe<V[number]>(
    Type.Union(
      values.map((v) => Type.Literal(v)),
      options,
    ),
  );

export const Uuid = (description?: string) => Type.String({ format: 'uuid', ...(description ? { description } : {}) });
export const Timestamp = (description?: string) => Type.String({ format: 'date-time', ...(description ? { description } : {}) });
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
/**
 * A `pattern` with the message a client reads when a value does not match it (a bare pattern is
 * answered "must match pattern …"). The validator reads `x-pattern-message` beside the pattern.
 */
const explainedPattern = (pattern: string, message: string) => ({ pattern, 'x-pattern-message': message });
/** A country as ISO 3166-1 alpha-2, in capitals ("DE"): what a carrier's label and a 3PL's address check take. */
export const CountryCode = () => Type.String({ ...explainedPattern('^[A-Z]{2}$', 'must be an ISO 3166-1 alpha-2 country code in capitals, such as DE or US') });
/** An email address (RFC 5321 length: at most 254 characters). */
export const Email = () => Type.String({ format: 'email', maxLength: 254 });
/** A URL of a page or file on the web: http or https, with a host (no javascript:, data: or ftp:). */
export const WebUrl = (description?: string) =>
  Type.String({
    format: 'uri',
    ...explainedPattern('^[Hh][Tt][Tt][Pp][Ss]?://[^/?#:@\\s]', 'must be an http(s) URL'),
    maxLength: 2048,
    ...(description ? { description } : {}),
  });
/**
 * At least one character that shows: not white space, a control character, or one of the
 * invisible characters a "blank" title is made of (zero-width space and joiners, direction marks,
 * word joiner, soft hyphen, Hangul fillers). Ranges written as \u escapes, so the pattern means the
 * same with or without the `u` flag (generated clients' validators use either). NUL is left to the
 * storable-text rule, which names it (`invalid_text`).
 */
const VISIBLE = '[^\\s\\u0001-\\u001F\\u007F-\\u009F\\u00AD\\u034F\\u115F\\u1160\\u180E\\u200B-\\u200F\\u2060-\\u2064\\u3164\\uFEFF\\uFFA0]';
/** A required name or title: 1..max characters, not only white space or invisible characters. */
// No minLength beside the pattern: "" broke both, and was answered twice at one field.
export const NonBlank = (maxLength = 255) => Type.String({ maxLength, ...explainedPattern(VISIBLE, 'must not be blank') });
export const RequestId = Type.String({ format: 'uuid', description: 'Equal to the X-Request-Id header (an idempotent replay keeps the original).' });

export const IdParams = Type.Object({ id: Uuid("The record's id: one of this merchant's, else 404.") });

const nameOf = (schema: TSchema) => (schema as { 'x-component'?: string })['x-component'];
const named = <T extends TSchema>(name: string | undefined, schema: T) => (name ? component(name, schema) : schema);

/** A single-record answer (`<Item>Response`); `description` becomes the response's description. */
export const One = <T extends TSchema>(data: T, description: string) =>
  named(nameOf(data) && `${nameOf(data)}Response`, Type.Object({ data, request_id: RequestId }, { description }));
/** A list page (`<Item>List`); `description` becomes the response's description. */
export const Many = <T extends TSchema>(item: T, description: string) =>
  named(nameOf(item) && `${nameOf(item)}List`, Type.Object({ data: Type.Array(item), request_id: RequestId, meta: ListMeta }, { description }));

export const FieldErrorSchema = component(
  'FieldError',
  Type.Object({
    path: Type.String({ description: 'JSON pointer to the offending field of the request (`/adjustments/2/sku`).' }),
    message: Type.String(),
    code: Enum(Object.keys(FIELD_ERROR_CODES) as FieldErrorCode[], { description: 'Stable code of the field error; see /errors#field-codes.' }),
  }),
);

const problemFields = (codes: ErrorCode[]) => ({
  type: Type.String({ description: "A link to the code's documentation on /errors." }),
  title: Type.String(),
  status: Type.Integer(),
  detail: Type.String(),
  code: Enum(codes, { description: 'Stable error code; see /errors.' }),
  request_id: RequestId,
  errors: Type.Optional(
    Type.Array(FieldErrorSchema, { maxItems: 100, description: 'One entry per offending field (validation_failed, insufficient_inventory); at most 100.' }),
  ),
});

/** RFC 9457 problem details, any code (the document's `Problem` component). */
export const Problem = Type.Object(problemFields(Object.keys(ERROR_CODES) as ErrorCode[]), { description: 'RFC 9457 problem details' });

/** Error answers of one operation: one response per status, `code` limited to the given codes. */
export function problems(...codes: ErrorCode[]) {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set(codes)) byStatus.set(ERROR_CODES[code].status, [...(byStatus.get(ERROR_CODES[code].status) ?? []), code]);
  return Object.fromEntries(
    [...byStatus].map(([status, list]) => [
      status,
      Type.Object(problemFields(list), { description: list.map((c) => ERROR_CODES[c].title).join('; '), 'x-problem': list }),
    ]),
  );
}

// The error codes each kind of integration operation can answer, beside its own.
const ALWAYS: ErrorCode[] = ['unauthorized', 'rate_limited', 'internal_error', 'service_unavailable'];
/** What a route with a JSON body can answer about the body (the operator API's routes too). */
export const WITH_BODY: ErrorCode[] = ['malformed_request', 'payload_too_large', 'unsupported_media_type', 'validation_failed'];
const IDEMPOTENT: ErrorCode[] = ['idempotency_in_progress', 'idempotency_key_reused'];
export const LIST_ERRORS: ErrorCode[] = [...ALWAYS, 'insufficient_scope', 'malformed_request', 'validation_failed'];
export const GET_ERRORS: ErrorCode[] = [...ALWAYS, 'insufficient_scope', 'not_found'];
/** Every integration write's problems (every write takes Idempotency-Key); a route adds its own. */
export const IDEMPOTENT_ERRORS: ErrorCode[] = [...ALWAYS, 'insufficient_scope', ...WITH_BODY, ...IDEMPOTENT];

/**
 * The body of an action (an order cancel, an endpoint's rotate-secret, test and resend, a portal
 * sign-out or key revoke): only `{}`, and with the route's `emptyBodyOptional` none at all too. A
 * field is 422 `unknown_field`, a body that is not JSON 415 (without a body schema an action took
 * any body unread).
 */
export const ActionBody = Type.Object({}, { additionalProperties: false });
