// Test harness: each test file gets its own database copied from the migrated template, an app
// driven through app.inject, and helpers to onboard merchants through the operator API.
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomBytes } from 'node:crypto';
import { expect, inject } from 'vitest';
import pg from 'pg';
import { PGlite } from '@electric-sql/pglite';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { buildApp } from '../src/app.ts';
import { loadConfig, type Config } from '../src/config.ts';
import { pgliteDatabase, postgresDatabase, PGLITE_PARSERS, type DatabaseHandle } from '../src/db/database.ts';
import { serverSecret } from '../src/db/migrate.ts';
import fs from 'node:fs';
import { operationOf, preloadContract, responseViolations, statusesOf } from './contract.ts';
import type { components as IntegrationComponents, operations as IntegrationOperations } from '../packages/sdk/src/generated/openapi.ts';
import type { operations as PlatformOperations } from './generated/platform.ts';
import type { PortalAnswers, PortalRoute } from './portal-answers.ts';
import type { Logger } from 'pino';

export const OPERATOR_TOKEN = 'test-operator-token';
export const ADMIN_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
/** A timestamp as the API writes it: UTC, milliseconds, `Z`. */
export const ISO_TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
export const dbKind = () => inject('dbKind');
export const onPostgres = () => inject('dbKind') === 'postgres';

export interface TestDatabase extends DatabaseHandle {
  /** PostgreSQL only: a URL other processes can connect to. */
  url: string | null;
  /** Statements run since the last reset (for no-N+1 assertions). */
  queries: string[];
}

// The statements of one request (statementsOf): each query is also recorded in the list of the
// request whose async context sent it, so what timers and the worker send meanwhile (the request
// log's flush, a key's last_used_at, deliveries) is not counted as the request's.
const requestStatements = new AsyncLocalStorage<string[]>();

export async function testDatabase(): Promise<TestDatabase> {
  const queries: string[] = [];
  const onQuery = (q: string) => {
    queries.push(q);
    requestStatements.getStore()?.push(q);
  };
  if (inject('dbKind') === 'postgres') {
    const name = `${process.env.TEST_DB_PREFIX ?? 'mia'}_t_${process.pid}_${randomBytes(4).toString('hex')}`;
    const admin = new pg.Client({ connectionString: ADMIN_URL });
    await admin.connect();
    // CREATE DATABASE … TEMPLATE fails while another session is on the template; retry briefly.
    for (let i = 0; ; i++) {
      try {
        await admin.query(`create database ${name} template ${inject('dbTemplate')}`);
        break;
      } catch (err) {
        if (i > 50) throw err;
        await new Promise((r) => setTimeout(r, 100 + Math.random() * 200));
      }
    }
    const url = new URL(ADMIN_URL);
    url.pathname = `/${name}`;
    const handle = postgresDatabase(url.toString(), 20, onQuery);
    return {
      ...handle,
      url: url.toString(),
      queries,
      async close() {
        await handle.close();
        await admin.query(`drop database if exists ${name} with (force)`);
        await admin.end();
      },
    };
  }
  const blob = new Blob([fs.readFileSync(inject('dbTemplate'))]);
  const pglite = new PGlite({ loadDataDir: blob, parsers: PGLITE_PARSERS });
  await pglite.waitReady;
  return { ...pgliteDatabase(pglite, () => {}, onQuery), url: null, queries };
}

export function testConfig(overrides: Partial<Config> = {}): Config {
  return {
    ...loadConfig({}),
    platformAdminToken: OPERATOR_TOKEN,
    rateLimitPerMinute: 100_000,
    webhookAllowPrivateUrls: true,
    logLevel: 'silent',
    // TEST_REDIS_PREFIX: engineers sharing one Redis keep apart (tests that use Redis pass redisUrl).
    redisKeyPrefix: `${process.env.TEST_REDIS_PREFIX ?? ''}mia-`,
    ...overrides,
  };
}

export interface TestApp {
  app: FastifyInstance;
  database: TestDatabase;
  config: Config;
  close(): Promise<void>;
  /** Operator API call: path relative to /api/platform/v1. */
  op(method: string, path: string, body?: unknown): Promise<LightMyRequestResponse>;
  /** Integration API call with a key: path relative to /api/integrations/v1. */
  api(key: string | null, method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<LightMyRequestResponse>;
  /**
   * Requests the app was serving at once: `peak` since the last `reset()`. Race tests assert
   * `peak >= 2` so a race that never overlapped fails instead of passing by accident.
   */
  inFlight: { readonly now: number; readonly peak: number; reset(): void };
  /** Throws if any answer since the last check broke the published documents (inject calls check on their own). */
  assertKeptContract(): void;
  /** A merchant with named locations, created through the operator API. */
  merchant(options?: { locations?: number; name?: string }): Promise<TestMerchant>;
}

export interface TestMerchant {
  id: string;
  locations: string[];
  /** Create an API key with these scopes (and locations), returning its secret. */
  key(scopes: string[], locationIds?: string[]): Promise<string>;
  op(method: string, path: string, body?: unknown): Promise<LightMyRequestResponse>;
}

export async function startTestApp(overrides: Partial<Config> = {}, database?: TestDatabase, logger?: Logger): Promise<TestApp> {
  const db = database ?? (await testDatabase());
  const config = testConfig(overrides);
  const app = await buildApp({ db: db.db, config, secret: await serverSecret(db.db, null), pool: db.pool, logger: logger ?? false });
  // Every answer of a documented route is checked against the published document (test/contract.ts).
  await preloadContract();
  const violations: string[] = [];
  app.addHook('onSend', async (req, reply, payload) => {
    const route = req.routeOptions.url;
    if (route) {
      const body = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : '';
      violations.push(...(await responseViolations({ method: req.method, route, status: reply.statusCode, headers: reply.getHeaders(), body })));
      const operation = operationOf(req.method, route);
      answeredBy.set(String(reply.getHeader('x-request-id') ?? req.id), { operation: operation?.operationId ?? null, route: `${req.method} ${route}` });
    }
    return payload;
  });
  const assertKeptContract = () => {
    const found = violations.splice(0);
    if (found.length) throw new Error(`A response breaks the OpenAPI document:\n${found.join('\n')}`);
  };
  const inFlight = { now: 0, peak: 0, reset: () => void (inFlight.peak = inFlight.now) };
  app.addHook('onRequest', async () => {
    inFlight.now++;
    inFlight.peak = Math.max(inFlight.peak, inFlight.now);
  });
  app.addHook('onResponse', async () => void inFlight.now--);
  await app.ready();

  const call = async (opts: InjectOptions) => {
    const res = await app.inject(opts);
    assertKeptContract();
    return res;
  };
  const op = (method: string, path: string, body?: unknown) =>
    call({
      method: method as never,
      url: `/api/platform/v1${path}`,
      headers: { authorization: `Bearer ${OPERATOR_TOKEN}` },
      ...(body !== undefined ? { payload: body as never } : {}),
    });
  const api = (key: string | null, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    call({
      method: method as never,
      url: `/api/integrations/v1${path}`,
      headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers },
      ...(body !== undefined ? { payload: body as never } : {}),
    });

  return {
    app,
    database: db,
    config,
    op,
    api,
    inFlight,
    assertKeptContract,
    async close() {
      await app.close();
      await db.close();
      assertKeptContract(); // answers given to direct app.inject calls and to browsers
    },
    async merchant(options = {}) {
      const m = json(await op('POST', '/merchants', { name: options.name ?? 'Test merchant' }), 201, 'createMerchant').data;
      const locations: string[] = [];
      for (let i = 0; i < (options.locations ?? 2); i++) {
        locations.push(json(await op('POST', `/merchants/${m.id}/locations`, { name: `Location ${i + 1}` }), 201, 'createLocation').data.id);
      }
      const mop = (method: string, path: string, body?: unknown) => op(method, `/merchants/${m.id}${path}`, body);
      return {
        id: m.id,
        locations,
        op: mop,
        async key(scopes: string[], locationIds?: string[]) {
          const res = await mop('POST', '/api-keys', { label: 'test key', scopes, ...(locationIds ? { location_ids: locationIds } : {}) });
          return json(res, 201, 'createApiKey').data.secret;
        },
      };
    },
  };
}

interface MerchantAppOptions {
  config?: Partial<Config>;
  /** The merchant's locations (2 unless given). */
  locations?: number;
}

/**
 * The start of most suites: an app and one merchant, created through the operator API; with
 * `scopes`, also a key of the merchant holding them (its secret as `key`).
 */
export async function startMerchantApp(options: MerchantAppOptions & { scopes: readonly string[] }): Promise<{ t: TestApp; m: TestMerchant; key: string }>;
export async function startMerchantApp(options?: MerchantAppOptions): Promise<{ t: TestApp; m: TestMerchant }>;
export async function startMerchantApp(options: MerchantAppOptions & { scopes?: readonly string[] } = {}) {
  const t = await startTestApp(options.config);
  const m = await t.merchant({ locations: options.locations });
  return { t, m, ...(options.scopes ? { key: await m.key([...options.scopes]) } : {}) };
}

// ── Reading answers, typed from the published documents ────────────────────────────────────────
// `json(res, 201, 'createFulfillment')` asserts the status, checks that the answer came from that
// operation's route, and returns the body typed as the document says that status answers
// (integration types: the SDK's generated ones; operator types: test/generated/platform.ts).

type Operations = IntegrationOperations & PlatformOperations;
export type OperationId = keyof Operations & string;
type Responses<K extends OperationId> = Operations[K]['responses'];
/** The statuses the document lists for an operation. */
export type DocumentedStatus<K extends OperationId> = keyof Responses<K> & number;
type ContentOf<R> = R extends { content: infer C } ? C[keyof C] : null;
/** The body an operation answers with a status (null when that status has no body). */
export type ResponseBody<K extends OperationId, S extends DocumentedStatus<K>> = ContentOf<Responses<K>[S]>;
type SuccessStatus<K extends OperationId> = Extract<DocumentedStatus<K>, 200 | 201 | 202 | 204>;
/** Any body an operation documents (for a test that accepts several outcomes). */
export type AnyBody<K extends OperationId> = ResponseBody<K, DocumentedStatus<K>>;
/** An RFC 9457 problem as the document describes it. */
export type Problem = IntegrationComponents['schemas']['Problem'];

/** Which route (and documented operation) answered each request, by X-Request-Id; recorded by startTestApp's onSend hook. */
const answeredBy = new Map<string, { operation: string | null; route: string }>();
const answerOf = (res: LightMyRequestResponse) => {
  const id = res.headers['x-request-id'];
  return typeof id === 'string' ? answeredBy.get(id) : undefined;
};

function body(res: LightMyRequestResponse): unknown {
  return res.body ? JSON.parse(res.body) : null;
}

function expectStatus(res: LightMyRequestResponse, status: number) {
  if (res.statusCode !== status) throw new Error(`expected ${status}, got ${res.statusCode}: ${res.body}`);
}

/** Fails unless the answer came from `operation`'s route (a wrong operationId would type the body wrongly). */
function expectOperation(res: LightMyRequestResponse, operation: OperationId) {
  const answer = answerOf(res);
  if (!answer?.operation)
    throw new Error(
      `json(…, '${operation}'): no documented route answered this request (${answer?.route ?? 'no route'}; ${res.statusCode}: ${res.body.slice(0, 200)})`,
    );
  if (answer.operation !== operation) throw new Error(`json(…, '${operation}'): the answer came from ${answer.operation} (${answer.route})`);
}

/** The body of `operation`'s answer, failing with the body when the status is not `status`. */
export function json<K extends OperationId, S extends DocumentedStatus<K>>(res: LightMyRequestResponse, status: S, operation: K): ResponseBody<K, S> {
  expectStatus(res, status);
  expectOperation(res, operation);
  return body(res) as ResponseBody<K, S>;
}

/** The body of `operation`'s success answer (its one documented 2xx status). */
export function ok<K extends OperationId>(res: LightMyRequestResponse, operation: K): ResponseBody<K, SuccessStatus<K>> {
  const success = statusesOf(operation).filter((s) => s >= 200 && s < 300);
  if (success.length !== 1)
    throw new Error(
      `ok(…, '${operation}'): the operation documents ${success.length} success statuses (${success.join(', ')}); use json(res, status, '${operation}')`,
    );
  return json(res, success[0] as SuccessStatus<K>, operation) as ResponseBody<K, SuccessStatus<K>>;
}

/** The body of `operation`'s answer whatever its documented status (the test checks which). */
export function anyJson<K extends OperationId>(res: LightMyRequestResponse, operation: K): AnyBody<K> {
  expectOperation(res, operation);
  return body(res) as AnyBody<K>;
}

/** A problem answer (application/problem+json) with this status. */
export function problem(res: LightMyRequestResponse, status: number): Problem {
  expectStatus(res, status);
  const type = String(res.headers['content-type'] ?? '').split(';')[0];
  if (type !== 'application/problem+json') throw new Error(`expected application/problem+json, got ${type || '(none)'}: ${res.body}`);
  return body(res) as Problem;
}

/** The body of a portal answer (/portal/api, in no published document), typed from the route's own response schema. */
export function portalJson<R extends PortalRoute>(res: LightMyRequestResponse, status: number, route: R): PortalAnswers[R] {
  expectStatus(res, status);
  const answer = answerOf(res);
  if (answer?.route !== route) throw new Error(`portalJson(…, '${route}'): the answer came from ${answer?.route ?? 'no route'}`);
  return body(res) as PortalAnswers[R];
}

/**
 * The body of an answer no document describes (portal, health, the documents themselves), typed by
 * the caller: `untypedJson<{ data: PortalOverview }>(res, 200)`. Prefer json() for documented routes.
 */
export function untypedJson<T>(res: LightMyRequestResponse, status: number): T {
  expectStatus(res, status);
  return body(res) as T;
}

/** A page of any cursor list operation (`list…`): its items' ids and the next cursor. */
export function listPage(res: LightMyRequestResponse): { data: { id: string }[]; meta: { next_cursor: string | null } } {
  expectStatus(res, 200);
  const operation = answerOf(res)?.operation;
  if (!operation?.startsWith('list')) throw new Error(`listPage(): the answer came from ${operation ?? 'no documented route'}, not a list operation`);
  return body(res) as { data: { id: string }[]; meta: { next_cursor: string | null } };
}

/** Every page of a list, following next_cursor. */
export async function walk(t: TestApp, key: string, path: string, limit: number) {
  const ids: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const sep = path.includes('?') ? '&' : '?';
    const res = await t.api(key, 'GET', `${path}${sep}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    const body = listPage(res);
    ids.push(...body.data.map((r) => r.id));
    cursor = body.meta.next_cursor;
    pages++;
  } while (cursor);
  return { ids, pages };
}

/** The statements `request` sent (its own async context: not a timer's or the worker's that ran meanwhile). */
export async function statementsOf(request: () => Promise<unknown>): Promise<string[]> {
  const sent: string[] = [];
  await requestStatements.run(sent, request);
  // Every request the counts are taken of reads or writes: none recorded means the context was lost.
  if (sent.length === 0) throw new Error('statementsOf: no statement was recorded for the request');
  return sent;
}

/** How many statements the database ran for `request` (for no-N+1 checks: a list's count must not grow with its page size). */
export const countStatements = async (request: () => Promise<unknown>): Promise<number> => (await statementsOf(request)).length;

/** A problem+json answer with this status and code, its type and request_id as the contract says; returns it. */
export function expectProblem(res: LightMyRequestResponse, status: number, code: string): Problem {
  expect(res.statusCode).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  const body = problem(res, status);
  expect(body.code).toBe(code);
  expect(body.status).toBe(status);
  expect(body.type).toBe(`/errors#${code}`);
  expect(body.request_id).toBe(res.headers['x-request-id']);
  return body;
}

type Stoppable = { stop(): Promise<unknown> } | { close(): Promise<unknown> } | undefined;

/** Stops or closes, one after another in the order given, what a suite started (skipping what never started). */
export async function shutDown(...parts: Stoppable[]): Promise<void> {
  for (const part of parts) if (part) await ('stop' in part ? part.stop() : part.close());
}
