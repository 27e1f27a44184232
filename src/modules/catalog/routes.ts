// The route shape the catalog kinds share: list, get, create (201 + Location) and update, with
// the kind's scopes (`<scope>.read`, `.write`, and `.submit` for a body with `submit: true`).
import type { FastifyPluginAsyncTypebox, TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyRequest, RawRequestDefaultExpression, RawServerDefault, RouteGenericInterface } from 'fastify';
import type { TObject, TSchema } from 'typebox';
import { ctxOf, requireScope, type Ctx } from '../../http/context.ts';
import { capital, getById, listOf } from '../../http/read-routes.ts';
import type { Page, PageRequest } from '../../http/paging.ts';
import type { JsonText } from '../../http/serialize.ts';
import { IdParams, One, CREATE_ERRORS, UPDATE_ERRORS, problems } from '../../http/schemas.ts';
import { ListQuery } from './schemas.ts';

type App = Parameters<FastifyPluginAsyncTypebox>[0];
/** A body as the route's handler sees it once `schema` validated it (what a `body: S` route gives). */
type BodyOf<S extends TSchema> = FastifyRequest<RouteGenericInterface, RawServerDefault, RawRequestDefaultExpression, { body: S }, TypeBoxTypeProvider>['body'];

interface Doc {
  summary: string;
  description?: string;
}

export interface CatalogRouteSpec<T extends { id: string }, C extends TObject, U extends TObject> {
  /** The singular noun ('social video'): it names the path (/social-videos), the scopes
   * (social_videos.read/.write/.submit), the tag (Social videos) and the operationIds (getSocialVideo). */
  noun: string;
  schema: TSchema;
  /** Whether `submit: true` in a body needs `<scope>.submit`. */
  submits: boolean;
  list: Doc;
  create: Doc & { body: C; run: (ctx: Ctx, body: BodyOf<C>) => Promise<T> };
  update: Doc & { body: U; run: (ctx: Ctx, id: string, body: BodyOf<U>) => Promise<T> };
  /** The record, or its JSON text as PostgreSQL built it (answered as it is). */
  get: (ctx: Ctx, id: string) => Promise<T | JsonText<T>>;
  page: (ctx: Ctx, page: PageRequest, query: { updated_after?: string }) => Promise<Page<T | JsonText<T>>>;
}

const doc = ({ summary, description }: Doc) => ({ summary, ...(description !== undefined && { description }) });

export function catalogRoutes<T extends { id: string }, C extends TObject, U extends TObject>(app: App, spec: CatalogRouteSpec<T, C, U>): void {
  const many = `${spec.noun}s`;
  const op = spec.noun.split(' ').map(capital).join('');
  const s = {
    ...spec,
    one: spec.noun,
    many,
    opOne: op,
    opMany: `${op}s`,
    tag: capital(many),
    path: `/${many.replaceAll(' ', '-')}`,
    scope: many.replaceAll(' ', '_'),
  };
  const read = { scope: `${s.scope}.read` };
  const write = { scope: `${s.scope}.write` };
  /** A route's options: the scope it needs, and its schema under the kind's tag. */
  const route = <S extends object>(config: { scope: string }, operationId: string, schema: S) => ({
    config,
    schema: { operationId, tags: [s.tag], ...schema },
  });
  const submitted = (body: unknown) => s.submits && typeof body === 'object' && body !== null && 'submit' in body && body.submit === true;
  const resource = { path: s.path, scope: read.scope, tag: s.tag, item: s.schema };
  listOf(app, resource, { operationId: `list${s.opMany}`, ...doc(s.list), querystring: ListQuery, answer: `A page of ${s.many}.` }, s.page);
  getById(app, resource, { operationId: `get${s.opOne}`, summary: `Get a ${s.one}`, answer: `The ${s.one}.` }, s.get);
  app.post(
    s.path,
    route(write, `create${s.opOne}`, {
      ...doc(s.create),
      body: s.create.body,
      response: { 201: One(s.schema, `The ${s.one} created.`), ...problems(...CREATE_ERRORS) },
    }),
    async (req, reply) => {
      if (submitted(req.body)) requireScope(req, `${s.scope}.submit`);
      const created = await s.create.run(ctxOf(req), req.body);
      reply.code(201).header('Location', `${app.prefix}${s.path}/${created.id}`);
      return { data: created, request_id: req.id };
    },
  );
  app.patch(
    `${s.path}/:id`,
    route(write, `update${s.opOne}`, {
      ...doc(s.update),
      params: IdParams,
      body: s.update.body,
      response: { 200: One(s.schema, `The ${s.one} after the change.`), ...problems(...UPDATE_ERRORS) },
    }),
    async (req) => {
      if (submitted(req.body)) requireScope(req, `${s.scope}.submit`);
      return { data: await s.update.run(ctxOf(req), req.params.id, req.body), request_id: req.id };
    },
  );
}
