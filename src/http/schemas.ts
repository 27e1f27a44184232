// Schema pieces shared by routes: ids, envelopes, problems.
import { Type, type TSchema } from 'typebox';
import { ListMeta } from './paging.ts';

export const Uuid = (description?: string) => Type.String({ format: 'uuid', ...(description ? { description } : {}) });
export const Timestamp = (description?: string) => Type.String({ format: 'date-time', ...(description ? { description } : {}) });
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const IdParams = Type.Object({ id: Uuid() });

export const Problem = Type.Object(
  {
    type: Type.String(),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    code: Type.String(),
    request_id: Type.String({ format: 'uuid' }),
    errors: Type.Optional(
      Type.Array(Type.Object({ path: Type.String({ description: 'JSON pointer' }), message: Type.String(), code: Type.String() })),
    ),
  },
  { description: 'RFC 9457 problem details' },
);

/** A single-record answer; `description` becomes the response's description in the document. */
export const One = <T extends TSchema>(data: T, description: string) => Type.Object({ data, request_id: Type.String({ format: 'uuid' }) }, { description });
/** A list page; `description` becomes the response's description in the document. */
export const Many = <T extends TSchema>(item: T, description: string) =>
  Type.Object({ data: Type.Array(item), request_id: Type.String({ format: 'uuid' }), meta: ListMeta }, { description });

/** Error answers, for the OpenAPI document. */
export const problems = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((s) => [s, { ...Problem, description: PROBLEM_TEXT[s] ?? 'Error' }]));

const PROBLEM_TEXT: Record<number, string> = {
  400: 'malformed_request',
  401: 'unauthorized',
  403: 'insufficient_scope or location_forbidden',
  404: 'not_found',
  409: 'read_only_record, invalid_state or idempotency_in_progress',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  422: 'validation_failed (errors[] names each field), insufficient_inventory or idempotency_key_reused',
  429: 'rate_limited',
};

export const READ_ERRORS = [400, 401, 403, 404, 422, 429];
export const WRITE_ERRORS = [400, 401, 403, 404, 409, 413, 415, 422, 429];
