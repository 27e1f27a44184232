// Test harness: each test file gets its own database copied from the migrated template, an app
// driven through app.inject, and helpers to onboard merchants through the operator API.
import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import pg from 'pg';
import { PGlite } from '@electric-sql/pglite';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { buildApp } from '../src/app.ts';
import { loadConfig, type Config } from '../src/config.ts';
import { pgliteDatabase, postgresDatabase, PGLITE_PARSERS, type DatabaseHandle } from '../src/db/database.ts';
import { serverSecret } from '../src/db/migrate.ts';
import fs from 'node:fs';
import { preloadContract, responseViolations } from './contract.ts';
import type { Logger } from 'pino';

export const OPERATOR_TOKEN = 'test-operator-token';
export const ADMIN_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const dbKind = () => inject('dbKind');
export const onPostgres = () => inject('dbKind') === 'postgres';

export interface TestDatabase extends DatabaseHandle {
  /** PostgreSQL only: a URL other processes can connect to. */
  url: string | null;
  /** Statements run since the last reset (for no-N+1 assertions). */
  queries: string[];
}

export async function testDatabase(): Promise<TestDatabase> {
  const queries: string[] = [];
  const onQuery = (q: string) => void queries.push(q);
  if (inject('dbKind') === 'postgres') {
    const name = `mia_t_${process.pid}_${randomBytes(4).toString('hex')}`;
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
    }
    return payload;
  });
  const assertKeptContract = () => {
    const found = violations.splice(0);
    if (found.length) throw new Error(`A response breaks the OpenAPI document:\n${found.join('\n')}`);
  };
  await app.ready();

  const call = async (opts: InjectOptions) => {
    const res = await app.inject(opts);
    assertKeptContract();
    return res;
  };
  const op = (method: string, path: string, body?: unknown) =>
    call({ method: method as never, url: `/api/platform/v1${path}`, headers: { authorization: `Bearer ${OPERATOR_TOKEN}` }, ...(body !== undefined ? { payload: body as never } : {}) });
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
    async close() {
      await app.close();
      await db.close();
      assertKeptContract(); // answers given to direct app.inject calls and to browsers
    },
    async merchant(options = {}) {
      const m = json(await op('POST', '/merchants', { name: options.name ?? 'Test merchant' }), 201).data;
      const locations: string[] = [];
      for (let i = 0; i < (options.locations ?? 2); i++) {
        locations.push(json(await op('POST', `/merchants/${m.id}/locations`, { name: `Location ${i + 1}` }), 201).data.id);
      }
      const mop = (method: string, path: string, body?: unknown) => op(method, `/merchants/${m.id}${path}`, body);
      return {
        id: m.id,
        locations,
        op: mop,
        async key(scopes: string[], locationIds?: string[]) {
          const res = await mop('POST', '/api-keys', { label: 'test key', scopes, ...(locationIds ? { location_ids: locationIds } : {}) });
          return json(res, 201).data.secret;
        },
      };
    },
  };
}

/** Parse a response body, failing with the body when the status is not the expected one. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function json(res: LightMyRequestResponse, status?: number): any {
  if (status !== undefined && res.statusCode !== status) {
    throw new Error(`expected ${status}, got ${res.statusCode}: ${res.body}`);
  }
  return res.body ? JSON.parse(res.body) : null;
}

/** Every page of a list, following next_cursor. */
export async function walk(t: TestApp, key: string, path: string, limit: number) {
  const ids: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const sep = path.includes('?') ? '&' : '?';
    const res = await t.api(key, 'GET', `${path}${sep}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    const body = json(res, 200);
    ids.push(...body.data.map((r: { id: string }) => r.id));
    cursor = body.meta.next_cursor;
    pages++;
  } while (cursor);
  return { ids, pages };
}
