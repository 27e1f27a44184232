// The route shape the catalog kinds share: list, get, create (201 + Location) and update, with
// the kind's scopes (`<scope>.read`, `.write`, and `.submit` for a body with `submit: true`).
import type { FastifyPluginAsyncTypebox, TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyRequest, RawRequestDefaultExpression, RawServerDefault, RouteGenericInterface } from 'fastify';
import type { TObject, TSchema } from 'typebox';
import { requireScope, type Ctx } from '../../http/context.ts';
import { idempotentRoute, type WriteResult } from '../../http/idempotency.ts';
import { capital, getById, listOf } from '../../http/read-routes.ts';
import type { Page, PageRequest } from '../../http/paging.ts';
import type { JsonText } from '../../http/serialize.ts';
import { IdParams, One, IDEMPOTENT_ERRORS, problems } from '../../http/schemas.ts';
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
  const submitted = (body: unknown) => s.submits && typeof body === 'object' && body !== null && 'submit' in body && body.submit === true;
  const resource = { path: s.path, scope: read.scope, tag: s.tag, item: s.schema };
  listOf(app, resource, { operationId: `list${s.opMany}`, ...doc(s.list), querystring: ListQuery, answer: `A page of ${s.many}.` }, s.page);
  getById(app, resource, { operationId: `get${s.opOne}`, summary: `Get a ${s.one}`, answer: `The ${s.one}.` }, s.get);
  // Both writes take Idempotency-Key, as every integration write does: a create retried after a
  // lost answer made a second record, and a PATCH adding a variant answered its retry 422 taken.
  const submitScope = (req: FastifyRequest) => {
    if (submitted(req.body)) requireScope(req, `${s.scope}.submit`);
  };
  const idempotent = ' Supports `Idempotency-Key`.';
  const writeRoute = (
    method: 'POST' | 'PATCH',
    path: string,
    kind: 'create' | 'update',
    schema: { params?: typeof IdParams; response: Record<number, TSchema> },
    run: (ctx: Ctx, input: { body: unknown; params: { id?: string } }) => Promise<WriteResult>,
  ) =>
    idempotentRoute(
      app,
      method,
      path,
      {
        ...write,
        check: submitScope,
        schema: {
          operationId: `${kind}${s.opOne}`,
          tags: [s.tag],
          summary: s[kind].summary,
          description: `${s[kind].description ?? ''}${idempotent}`.trim(),
          body: s[kind].body as TSchema,
          ...schema,
        },
      },
      run,
    );
  writeRoute(
    'POST',
    s.path,
    'create',
    {
      response: {
        201: One(s.schema, `The ${s.one} created (or, with \`Idempotent-Replayed: true\`, the stored answer).`),
        ...problems(...IDEMPOTENT_ERRORS),
      },
    },
    async (ctx, { body }) => {
      const created = await s.create.run(ctx, body as BodyOf<C>);
      return { status: 201, data: created, location: `${s.path}/${created.id}` };
    },
  );
  writeRoute(
    'PATCH',
    `${s.path}/:id`,
    'update',
    {
      params: IdParams,
      response: {
        200: One(s.schema, `The ${s.one} after the change (or, with \`Idempotent-Replayed: true\`, the stored answer).`),
        ...problems(...IDEMPOTENT_ERRORS, 'not_found', 'read_only_record'),
      },
    },
    async (ctx, { body, params }) => ({ status: 200, data: await s.update.run(ctx, params.id as string, body as BodyOf<U>) }),
  );
}
