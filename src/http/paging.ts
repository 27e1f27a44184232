// Keyset paging over (updated_at, id), the one home of every list's paging:
//   - listRoute registers a list route: page request from the query, the `{data, request_id, meta}` envelope;
//   - readPage runs a list's query with the standard tail (cursor, updated_after, order, limit + 1)
//     and cuts the page; the polled lists, compiled once per shape (db/statement.ts), put the tail
//     on with keysetPage (the page's values from pageValues) and cut the page with finishPage.
// Cursors are opaque, bound to the route and the filters they were made for, and signed so a
// tampered one is refused rather than silently misread.
import { createHmac, hash, timingSafeEqual } from 'node:crypto';
import type { FastifyContextConfig, FastifyRequest, FastifySchema } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { sql, type SelectQueryBuilder } from 'kysely';
import { Type, type Static, type TObject } from 'typebox';
import { Inlined } from '../db/statement.ts';
import { AppError } from './errors.ts';
import { canonicalJson, respond } from './serialize.ts';

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 250;

export const PageQuery = {
  limit: Type.Integer({ minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT, description: 'Rows per page, 1..250.' }),
  cursor: Type.String({ minLength: 1, maxLength: 1000, description: "Opaque cursor from the previous page's `meta.next_cursor`." }),
  updated_after: Type.String({ format: 'date-time', description: 'Only rows updated strictly after this instant (ISO-8601).' }),
};

/** The paging part of a list's querystring, spread after its own filters: `{ status, ...PageQueryFields }`. */
export const PageQueryFields = {
  updated_after: Type.Optional(PageQuery.updated_after),
  limit: Type.Optional(PageQuery.limit),
  cursor: Type.Optional(PageQuery.cursor),
};

export const ListMeta = Type.Object(
  {
    limit: Type.Integer({ description: 'The page size used.' }),
    next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as `cursor` for the next page; null on the last page.' }),
  },
  { 'x-component': 'ListMeta' },
);

export interface Position {
  updatedAt: string;
  id: string;
}

export interface PageRequest {
  /** Where the page starts (exclusive), from the cursor. */
  after: Position | null;
  limit: number;
  /** What the cursor is bound to: the route and every filter except limit and cursor. */
  binding: string;
  secret: string;
}

function sign(secret: string, payload: string): string {
  return createHmac('sha256', secret).update(payload).digest('base64url').slice(0, 32);
}

function bindingOf(route: string, query: Record<string, unknown>): string {
  const { limit: _l, cursor: _c, ...filters } = query;
  // One-shot (every list request runs it): the same digest as hashing route, then the filters.
  return hash('sha256', route + canonicalJson(filters), 'base64url').slice(0, 16);
}

export const badCursor = () => new AppError('malformed_request', 'The cursor is invalid, or was made for other filters.');

export function pageRequest(secret: string, route: string, query: { limit?: number; cursor?: string } & Record<string, unknown>): PageRequest {
  const binding = bindingOf(route, query);
  const limit = query.limit ?? DEFAULT_LIMIT;
  if (!query.cursor) return { after: null, limit, binding, secret };
  const decoded = openCursor(secret, binding, query.cursor);
  if (typeof decoded.u !== 'string' || typeof decoded.i !== 'string') throw badCursor();
  return { after: { updatedAt: decoded.u, id: decoded.i }, limit, binding, secret };
}

function sealCursor(secret: string, content: Record<string, unknown>): string {
  const payload = Buffer.from(JSON.stringify(content)).toString('base64url');
  return `${payload}.${sign(secret, payload)}`;
}

/** The cursor's content, once its signature and its binding to these filters are checked. */
function openCursor(secret: string, binding: string, cursor: string): Record<string, unknown> {
  const parts = cursor.split('.');
  if (parts.length !== 2) throw badCursor();
  const [payload, mac] = parts;
  if (!payload || !mac) throw badCursor();
  const expected = Buffer.from(sign(secret, payload));
  const given = Buffer.from(mac);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) throw badCursor();
  let decoded: Record<string, unknown>;
  try {
    decoded = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    throw badCursor();
  }
  if (!decoded || decoded.b !== binding) throw badCursor();
  return decoded;
}

/**
 * Cursors over another order than (updated_at, id), e.g. the event feed's positions: signed and
 * bound to the route and filters like every cursor. `position` is the last row of the page.
 */
export function positionCursor(secret: string, route: string, query: { cursor?: string } & Record<string, unknown>) {
  const binding = bindingOf(route, query);
  let position: string | null = null;
  if (query.cursor) {
    const decoded = openCursor(secret, binding, query.cursor);
    if (typeof decoded.p !== 'string') throw badCursor();
    position = decoded.p;
  }
  return { position, next: (last: string) => sealCursor(secret, { b: binding, p: last }) };
}

/**
 * The page sizes whose row count a list statement is written with. PostgreSQL plans a prepared
 * statement's `limit $n` as if it returned a tenth of the table, so at a million rows the generic
 * plan looked dear and every run was planned afresh (a custom plan each time: 0.2–0.9 ms of the
 * server's time on each list page at the 1M tier, the part of a page that grew with the table).
 * With the number written into the text the generic plan is costed right and kept. A page fetches
 * the rows of the smallest of these sizes that holds limit + 1 (the extra rows are cut), so a list
 * has at most six texts whatever limits its callers use; integrators' usual sizes fetch no more.
 */
const FETCH_SIZES = [1, 10, 25, 50, 100, MAX_LIMIT].map((size) => size + 1);

/** The rows a statement fetches for a page of `limit`: limit + 1 or the next size up (FETCH_SIZES). */
export const fetchRows = (limit: number): number => FETCH_SIZES.find((rows) => rows > limit) ?? limit + 1;

/**
 * What a page binds, ready for a statement (db/statement.ts): the cursor's position (null on the
 * first page), updated_after (strict; null: none) and the rows to fetch (fetchRows, written into
 * the statement's text).
 */
export interface PageValues {
  afterUpdatedAt: string | null;
  afterId: string | null;
  updatedAfter: Date | null;
  fetch: Inlined;
}

export const pageValues = (page: PageRequest, updatedAfter?: string): PageValues => ({
  afterUpdatedAt: page.after?.updatedAt ?? null,
  afterId: page.after?.id ?? null,
  updatedAfter: updatedAfter ? new Date(updatedAfter) : null,
  fetch: new Inlined(fetchRows(page.limit)),
});

/** Rows were fetched with limit + 1 or more: the first extra row only says whether another page exists. */
// updated_at is a Date, or its ISO text where PostgreSQL built it (isoSql), so no Date is parsed.
export function finishPage<T extends { updated_at: Date | string; id: string }>(page: PageRequest, rows: T[]) {
  const items = rows.slice(0, page.limit);
  let next_cursor: string | null = null;
  if (rows.length > page.limit) {
    const last = items[items.length - 1];
    const u = typeof last.updated_at === 'string' ? last.updated_at : last.updated_at.toISOString();
    next_cursor = sealCursor(page.secret, { b: page.binding, u, i: last.id });
  }
  return { items, meta: { limit: page.limit, next_cursor } };
}

/**
 * The standard list tail: rows after the cursor (and after `updated_after`, strict), ordered by
 * (updated_at, id), `fetch` of them. Its SQL depends only on which values are null and on `fetch`, so
 * a list can be a statement compiled once per shape (db/statement.ts) with the page's values spread into its own.
 */
// Any select over any tables: the tail only adds conditions on `table`'s updated_at and id.
type AnySelect = SelectQueryBuilder<any, any, any>;
export function keysetPage<QB extends AnySelect>(qb: QB, table: string, v: PageValues): QB {
  let q: AnySelect = qb;
  if (v.afterUpdatedAt !== null && v.afterId !== null) {
    q = q.where(sql<boolean>`(${sql.ref(`${table}.updated_at`)}, ${sql.ref(`${table}.id`)}) > (${v.afterUpdatedAt}::timestamptz, ${v.afterId}::uuid)`);
  }
  if (v.updatedAfter !== null) q = q.where(sql.ref(`${table}.updated_at`), '>', v.updatedAfter);
  return q
    .orderBy(sql.ref(`${table}.updated_at`))
    .orderBy(sql.ref(`${table}.id`))
    .limit(sql.lit(v.fetch.value)) as QB;
}

/** A list's page in one call: the query with the standard tail, executed and cut. */
export async function readPage<QB extends AnySelect>(qb: QB, table: string, page: PageRequest, updatedAfter?: string) {
  const rows = (await keysetPage(qb, table, pageValues(page, updatedAfter)).execute()) as Awaited<ReturnType<QB['execute']>>;
  return finishPage(page, rows);
}

export interface Page<T> {
  items: T[];
  meta: { limit: number; next_cursor: string | null };
}

type TypeBoxApp = Parameters<FastifyPluginAsyncTypebox>[0];

/** What a list's cursor is bound to besides its filters: the route pattern and its path parameters. */
export const cursorRoute = (req: FastifyRequest) => `${req.routeOptions.url}|${canonicalJson(req.params ?? {})}`;

/**
 * A list route: GET `path` whose querystring carries `limit`, `cursor` (and its filters). The page
 * request is made from the query (the cursor bound to this route, its path parameters and filters),
 * `list` reads the page, and the answer is the list envelope `{ data, request_id, meta }`.
 */
export function listRoute<Q extends TObject, T, P extends TObject = TObject>(
  app: TypeBoxApp,
  path: string,
  options: { config?: FastifyContextConfig; schema: FastifySchema & { querystring: Q; params?: P } },
  list: (req: FastifyRequest<{ Params: Static<P> }>, page: PageRequest, query: Static<Q>) => Promise<Page<T>>,
): void {
  app.get(path, options, async (req, reply) => {
    const query = req.query as Static<Q> & { limit?: number; cursor?: string };
    const route = cursorRoute(req);
    // The schema's params were validated before the handler runs (as the query above).
    const { items, meta } = await list(req as FastifyRequest<{ Params: Static<P> }>, pageRequest(app.secret, route, query), query);
    return respond(reply, req.id, items, meta);
  });
}
