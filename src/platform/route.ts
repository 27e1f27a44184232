// The operator API's route shape, declared once: every operation answers `{ data, request_id }`
// under the Operator tag, every id in its path is a UUID (the params schema and type follow from
// the path), and the problems it can answer follow from its shape (errorsOf). An operation states
// only what differs: method, path, its words in the document, the body, the answer and what runs;
// operatorCreate is a POST that creates (201).
import type { FastifyPluginAsyncTypebox, TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest, FastifySchema, RawRequestDefaultExpression, RawServerDefault } from 'fastify';
import { Type, type Static, type TSchema } from 'typebox';
import { operatorCtx, type Ctx } from '../http/context.ts';
import type { ErrorCode } from '../http/errors.ts';
import { Uuid, problems } from '../http/schemas.ts';
import { respond } from '../http/serialize.ts';
import { errorsOf, tags } from './schemas.ts';

type App = Parameters<FastifyPluginAsyncTypebox>[0];
type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';
/** The parameters a path names: '/merchants/:merchant_id/api-keys/:key_id' → 'merchant_id' | 'key_id'. */
type ParamNames<Path extends string> = Path extends `${string}:${infer Name}/${infer Rest}`
  ? Name | ParamNames<Rest>
  : Path extends `${string}:${infer Name}`
    ? Name
    : never;
/** What a route's path and body schema let through (the body is unknown where the route has none). */
type Inputs<Path extends string, B> = { Params: Record<ParamNames<Path>, string>; Body: B extends TSchema ? Static<B> : unknown };
/** The request as the handler of a route with this path and body schema sees it, once they validated it. */
type OperatorRequest<Path extends string, B> = FastifyRequest<
  Inputs<Path, B>,
  RawServerDefault,
  RawRequestDefaultExpression,
  FastifySchema,
  TypeBoxTypeProvider
>;
/** What an answer schema (`One(X, '…')` or a named envelope) carries in `data`. */
type DataOf<A extends TSchema> = Static<A> extends { data: infer D } ? D : never;

interface Operation<Path extends string, A extends TSchema, B extends TSchema | undefined> {
  operationId: string;
  summary: string;
  /** Longer words than the summary, where the operation needs them. */
  description?: string;
  body?: B;
  /** The success answer (200, or 201 for operatorCreate). */
  answer: A;
  /** The body can only be `{}` (an action): a request may also send none (src/app.ts, emptyBodyOptional). */
  emptyBodyOptional?: true;
  /** Problems beyond the ones every route of this shape can answer (errorsOf). */
  extraErrors?: ErrorCode[];
  run: (req: OperatorRequest<Path, B>) => Promise<DataOf<A>>;
}

/** Where to read what a route created (the Location header of its answer). */
interface Located<A extends TSchema> {
  /** The URL of the record's GET, from the answer and the path's parameters (`merchant_id`: the merchant). */
  location?: (data: DataOf<A>, params: Record<string, string>) => string;
}

/** A route that creates: its body is required, and it may say where to read what it created. */
interface Creation<Path extends string, A extends TSchema, B extends TSchema> extends Operation<Path, A, B>, Located<A> {
  body: B;
}

export function operatorRoute<Path extends string, A extends TSchema, B extends TSchema | undefined = undefined>(
  app: App,
  method: Method,
  path: Path,
  op: Operation<Path, A, B>,
): void {
  register(app, method, path, 200, op);
}

/** POST `path`: creates what the body describes and answers it with 201. */
export function operatorCreate<Path extends string, A extends TSchema, B extends TSchema>(app: App, path: Path, op: Creation<Path, A, B>): void {
  register(app, 'POST', path, 201, op);
}

function register<Path extends string, A extends TSchema, B extends TSchema | undefined>(
  app: App,
  method: Method,
  path: Path,
  status: 200 | 201,
  op: Operation<Path, A, B> & Located<A>,
): void {
  const { operationId, summary, description, body, answer, location, extraErrors = [], emptyBodyOptional, run } = op;
  const params = paramsOf(path);
  // A plain FastifySchema: the handler's params and body are typed through the route's generic
  // (Inputs, from the path and the body schema), and the answer against `run`'s type by Operation.
  const schema: FastifySchema = {
    operationId,
    summary,
    ...(description !== undefined && { description }),
    tags,
    // The document lists the Location header on the answers that send it (src/openapi/document.ts).
    response: { [status]: location ? { ...answer, 'x-location': true } : answer, ...problems(...errorsOf(method, path, body !== undefined), ...extraErrors) },
    ...(params !== undefined && { params }),
    // A body that may be left out is marked so the document says it is optional (src/openapi/document.ts).
    ...(body !== undefined && { body: emptyBodyOptional ? { ...body, 'x-body-optional': true } : body }),
  };
  app.route<Inputs<Path, B>>({
    method,
    url: path,
    schema,
    ...(emptyBodyOptional && { config: { emptyBodyOptional } }),
    handler: async (req, reply) => {
      const data = await run(req);
      if (status !== 200) reply.code(status);
      if (location) reply.header('Location', location(data, req.params as Record<string, string>));
      return respond(reply, req.id, data);
    },
  });
}

/** A path parameter `<record>_id`: that record's UUID ('merchant_id' → "The merchant's id."). */
export const idParam = (name: string) => Uuid(`The ${name.replace(/_id$/, '').replace(/_/g, ' ')}'s id.`);

/** The params schema of a path: each `:name` in it is a UUID (idParam). */
function paramsOf(path: string) {
  const names = [...path.matchAll(/:(\w+)/g)].map(([, name]) => name);
  return names.length === 0 ? undefined : Type.Object(Object.fromEntries(names.map((name) => [name, idParam(name)])));
}

/** The context of the merchant a route under /merchants/:merchant_id acts for. */
export const merchantCtx = (req: { server: FastifyInstance; params: { merchant_id: string } }): Ctx => operatorCtx(req, req.params.merchant_id);
