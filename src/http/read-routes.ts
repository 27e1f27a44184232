// The read routes of a resource, declared once: GET <path> (a keyset list, via listRoute) and
// GET <path>/:id, both behind one read scope and one OpenAPI tag. The documents they produce are the
// ones written out by hand before: `{ data, request_id, meta }` pages with LIST_ERRORS (plus the
// list's own codes), `{ data, request_id }` answers with GET_ERRORS. A resource with both routes is
// named by its noun (readRoutes), which gives the path, scope, tag and the operations' words.
import type { FastifySchema } from 'fastify';
import type { Static, TObject, TSchema } from 'typebox';
import { ctxOf, type Ctx } from './context.ts';
import type { ErrorCode } from './errors.ts';
import { respond } from './serialize.ts';
import { listRoute, type Page, type PageRequest } from './paging.ts';
import { GET_ERRORS, IdParams, LIST_ERRORS, Many, One, problems } from './schemas.ts';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';

type TypeBoxApp = Parameters<FastifyPluginAsyncTypebox>[0];

/** What a resource's read routes share: the scope that reads it, its tag and the item's schema. */
export interface Resource<S extends TSchema> {
  path: string;
  /** The read scope; undefined: any valid key (locations). */
  scope: string | undefined;
  tag: string;
  item: S;
}

/** One operation's own words in the OpenAPI document. */
interface Operation {
  operationId: string;
  summary: string;
  description?: string;
  /** The 200 answer's description. */
  answer: string;
}

/** GET `resource.path`: a page of items read by `list`; `extraErrors` are problems beyond LIST_ERRORS. */
export function listOf<S extends TSchema, Q extends TObject, T>(
  app: TypeBoxApp,
  resource: Resource<S>,
  op: Operation & { querystring: Q; extraErrors?: ErrorCode[] },
  list: (ctx: Ctx, page: PageRequest, query: Static<Q>) => Promise<Page<T>>,
): void {
  const { operationId, summary, description, querystring, answer, extraErrors = [] } = op;
  listRoute(
    app,
    resource.path,
    {
      config: { scope: resource.scope },
      schema: {
        operationId,
        tags: [resource.tag],
        summary,
        ...(description === undefined ? {} : { description }),
        querystring,
        response: { 200: Many(resource.item, answer), ...problems(...LIST_ERRORS, ...extraErrors) },
      },
    },
    (req, page, query) => list(ctxOf(req), page, query),
  );
}

/** GET `resource.path`/:id: one item read by `get` (which throws not_found). */
export function getById<S extends TSchema, T>(app: TypeBoxApp, resource: Resource<S>, op: Operation, get: (ctx: Ctx, id: string) => Promise<T>): void {
  const { operationId, summary, description, answer } = op;
  // Typed as a plain FastifySchema (as listRoute's options are): the answer's shape is the item's
  // schema, which the route cannot check against `get`'s type; the params stay typed.
  const schema: FastifySchema & { params: typeof IdParams } = {
    operationId,
    tags: [resource.tag],
    summary,
    ...(description === undefined ? {} : { description }),
    params: IdParams,
    response: { 200: One(resource.item, answer), ...problems(...GET_ERRORS.filter((c) => resource.scope !== undefined || c !== 'insufficient_scope')) },
  };
  app.get(`${resource.path}/:id`, { config: { scope: resource.scope }, schema }, async (req, reply) =>
    respond(reply, req.id, await get(ctxOf(req), req.params.id)),
  );
}

/** A resource both listed and read by id, named by its singular noun (one lower-case word). */
export interface NamedResource<S extends TSchema, Q extends TObject, T> {
  /** 'order' gives GET /orders and /orders/:id behind orders.read, tag Orders, listOrders and getOrder. */
  noun: string;
  item: S;
  list: (ctx: Ctx, page: PageRequest, query: Static<Q>) => Promise<Page<T>>;
  listQuery: Q;
  listDescription: string;
  get: (ctx: Ctx, id: string) => Promise<T>;
}

/** The word with its first letter in capitals ('orders' → 'Orders'). */
export const capital = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);

/** GET /<noun>s and GET /<noun>s/:id, their operations worded from the noun. */
export function readRoutes<S extends TSchema, Q extends TObject, T>(app: TypeBoxApp, r: NamedResource<S, Q, T>): void {
  const many = `${r.noun}s`;
  const resource = { path: `/${many}`, scope: `${many}.read`, tag: capital(many), item: r.item };
  const list = {
    operationId: `list${capital(many)}`,
    summary: `List ${many}`,
    description: r.listDescription,
    querystring: r.listQuery,
    answer: `A page of ${many}.`,
  };
  listOf(app, resource, list, r.list);
  const article = /^[aeiou]/.test(r.noun) ? 'an' : 'a';
  getById(app, resource, { operationId: `get${capital(r.noun)}`, summary: `Get ${article} ${r.noun}`, answer: `The ${r.noun}.` }, r.get);
}
