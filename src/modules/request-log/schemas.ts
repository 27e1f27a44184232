// The API request log as the portal and the operator API show it.
import { Type, type Static } from 'typebox';
import { Nullable, Timestamp, Uuid } from '../../http/schemas.ts';

export const StatusClass = Type.Union([Type.Literal('2xx'), Type.Literal('3xx'), Type.Literal('4xx'), Type.Literal('5xx'), Type.Literal('errors')]);

export const LoggedRequest = Type.Object({
  id: Type.String({ description: 'Log entry id: the request id (UUIDv7; a newer request sorts higher)' }),
  request_id: Uuid('The X-Request-Id the integrator saw'),
  created_at: Timestamp('When the request arrived'),
  api_key: Type.Object({ id: Uuid(), label: Type.String(), prefix: Type.String() }),
  method: Type.String(),
  path: Type.String(),
  query: Nullable(Type.String()),
  status: Type.Integer(),
  error_code: Nullable(Type.String()),
  duration_ms: Type.Number(),
  /** Only in the detail view and the operator lookup. */
  problem: Type.Optional(
    Nullable(
      Type.Object(
        {},
        {
          additionalProperties: true,
          description:
            'The problem body the request was answered with (errors only); one over 16,384 characters (UTF-16 code units) as `{"truncated": true, "excerpt": "<its first 16,384>"}`.',
        },
      ),
    ),
  ),
});
export type LoggedRequest = Static<typeof LoggedRequest>;

export const RequestStats = Type.Object({
  total: Type.Integer(),
  errors: Type.Integer({ description: '4xx and 5xx' }),
  error_rate: Type.Number({ description: '0..1' }),
  hours: Type.Array(Type.Object({ hour: Timestamp(), total: Type.Integer(), errors: Type.Integer() }), { description: 'The last 24 hours, oldest first' }),
});
export type RequestStats = Static<typeof RequestStats>;
