// API-key lookups are cached in each process, and a revocation is effective at once everywhere:
// in one process (two apps on one database, PGlite or PostgreSQL) and across processes on
// PostgreSQL (NOTIFY on revoke, a LISTEN connection per process). last_used_at is written in
// batches, off the request path.
import type { ChildProcess } from 'node:child_process';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../app.ts';
import { hashSecret, keyStore } from '../../http/keys.ts';
import { json, OPERATOR_TOKEN, onPostgres, problem, startTestApp, untypedJson, type TestApp, type TestMerchant } from '../../../test/helpers.ts';
import { requestBodySchema } from '../../../test/contract.ts';
import { waitFor } from '../../../test/wait.ts';
import { spawnQuietService } from '../../../test/service-process.ts';
import { fingerprint } from '../../../test/fingerprint.ts';
import { portalCall, portalUser } from '../../../test/fixtures.ts';

let t: TestApp;
let m: TestMerchant;

beforeAll(async () => {
  t = await startTestApp();
  m = await t.merchant({ locations: 1 });
  await waitFor(() => (keyStore(t.database.db).trusted ? true : undefined), { what: 'the key cache to be trusted', deadlineMs: 15_000 });
});
afterAll(() => t?.close());

const keyLookups = (queries: string[]) => queries.filter((q) => /from "api_keys"/.test(q) && /"secret_hash"/.test(q)).length;
const keyTouches = (queries: string[]) => queries.filter((q) => /^update "api_keys" set "last_used_at"/.test(q)).length;

describe('the key cache', () => {
  it('a key used again is not looked up again, and no request writes last_used_at itself', async () => {
    const key = await m.key(['orders.read']);
    const queries = t.database.queries;
    queries.length = 0;
    for (let i = 0; i < 5; i++) json(await t.api(key, 'GET', '/orders'), 200, 'listOrders');
    expect(keyLookups(queries)).toBe(1);
    expect(keyTouches(queries)).toBe(0);
    // Written within a second, by one statement, and before the key records are read.
    const records = json(await m.op('GET', `/api-keys/${await keyId(key)}`), 200, 'getApiKey').data;
    expect(records.last_used_at).not.toBeNull();
    expect(keyTouches(queries)).toBe(1);
  });

  it('touches of many keys are written by one statement', async () => {
    const keys = await Promise.all([1, 2, 3, 4].map(() => m.key(['orders.read'])));
    const queries = t.database.queries;
    await keyStore(t.database.db).flushTouches();
    queries.length = 0;
    for (const key of keys) json(await t.api(key, 'GET', '/orders'), 200, 'listOrders');
    expect(keyTouches(queries)).toBe(0);
    await keyStore(t.database.db).flushTouches();
    expect(keyTouches(queries)).toBe(1);
    const { rows } = await sql<{ n: string }>`select count(*) as n from api_keys where merchant_id = ${m.id} and last_used_at is not null`.execute(
      t.database.db,
    );
    expect(Number(rows[0].n)).toBeGreaterThanOrEqual(keys.length);
  });

  it('a key revoked through one app is refused by another app of the process on its next request', async () => {
    const other = await buildApp({ db: t.database.db, config: t.config, secret: 'second-app-secret', pool: t.database.pool, logger: false });
    try {
      await waitFor(() => (keyStore(t.database.db).trusted ? true : undefined), { what: 'the key cache to be trusted', deadlineMs: 15_000 });
      const inOther = (key: string) => other.inject({ method: 'GET', url: '/api/integrations/v1/orders', headers: { authorization: `Bearer ${key}` } });
      for (let i = 0; i < 5; i++) {
        const key = await m.key(['orders.read']);
        expect((await inOther(key)).statusCode).toBe(200);
        expect((await inOther(key)).statusCode).toBe(200);
        json(await m.op('DELETE', `/api-keys/${await keyId(key)}`), 200, 'revokeApiKey');
        const refused = await inOther(key);
        expect(refused.statusCode).toBe(401);
        expect(problem(refused, 401).detail).toBe('This API key has been revoked.');
      }
    } finally {
      await other.close();
    }
  });
});

async function keyId(secret: string): Promise<string> {
  const row = await t.database.db.selectFrom('api_keys').select('id').where('secret_hash', '=', hashSecret(secret)).executeTakeFirstOrThrow();
  return row.id;
}

describe('location restriction', () => {
  const TOO_FEW = [{ path: '/location_ids', message: 'must NOT have fewer than 1 items', code: 'too_few' }];

  it('an empty location_ids is refused with 422 in the operator API and the portal, and creates no key', async () => {
    const s = await portalUser(t, m, 'keys@restriction.test');
    const body = { label: 'Nowhere', scopes: ['orders.read'], location_ids: [] };
    const before = await fingerprint(t.database.db);
    const refused = [await m.op('POST', '/api-keys', body), await portalCall(t, s, 'POST', '/api-keys', body)];
    for (const res of refused) {
      expect(problem(res, 422)).toMatchObject({ code: 'validation_failed', errors: TOO_FEW });
      expect(problem(res, 422).errors).toEqual(TOO_FEW);
    }
    expect(await fingerprint(t.database.db)).toEqual(before);
  });

  it('a label of only white space is refused in the operator API and the portal, and creates no key', async () => {
    const s = await portalUser(t, m, 'keys@blank-label.test');
    const body = { label: '  \n ', scopes: ['orders.read'] };
    const before = await fingerprint(t.database.db);
    for (const res of [await m.op('POST', '/api-keys', body), await portalCall(t, s, 'POST', '/api-keys', body)]) {
      expect(problem(res, 422).errors).toEqual([{ path: '/label', message: 'must not be blank', code: 'invalid_format' }]);
    }
    expect(await fingerprint(t.database.db)).toEqual(before);
  });

  it('null or absent location_ids make a key for every location; a list restricts it', async () => {
    const every = [
      json(await m.op('POST', '/api-keys', { label: 'All', scopes: ['orders.read'], location_ids: null }), 201, 'createApiKey').data,
      json(await m.op('POST', '/api-keys', { label: 'All', scopes: ['orders.read'] }), 201, 'createApiKey').data,
    ];
    expect(every.map((k) => k.location_ids)).toEqual([null, null]);
    const one = json(await m.op('POST', '/api-keys', { label: 'One', scopes: ['orders.read'], location_ids: [m.locations[0]] }), 201, 'createApiKey').data;
    expect(one.location_ids).toEqual([m.locations[0]]);
  });

  it('the operator document says location_ids, when given, lists at least one location', async () => {
    const doc = untypedJson<unknown>(await t.app.inject({ method: 'GET', url: '/api/platform/v1/openapi.json' }), 200);
    const field = requestBodySchema(doc, '/api/platform/v1/merchants/{merchant_id}/api-keys', 'post').properties.location_ids;
    expect(field.anyOf).toEqual([
      { type: 'array', items: { type: 'string', format: 'uuid' }, minItems: 1, maxItems: 100, uniqueItems: true },
      { type: 'null' },
    ]);
  });
});

describe.runIf(onPostgres())('API processes on one PostgreSQL', () => {
  const children: ChildProcess[] = [];
  const PORTS = [7711, 7712];
  const base = (i: number) => `http://127.0.0.1:${PORTS[i]}`;

  function startApi(port: number): ChildProcess {
    const child = spawnQuietService({
      DATABASE_URL: t.database.url!,
      ROLE: 'api',
      PORT: String(port),
      HOST: '127.0.0.1',
      PLATFORM_ADMIN_TOKEN: OPERATOR_TOKEN,
      RATE_LIMIT_PER_MINUTE: '100000',
      REDIS_URL: '',
    });
    children.push(child);
    return child;
  }
  const listeners = async () =>
    Number(
      (
        await sql<{
          n: string;
        }>`select count(*) as n from pg_stat_activity where application_name = 'api-key-changes' and datname = current_database()`.execute(t.database.db)
      ).rows[0].n,
    );

  beforeAll(async () => {
    const before = await listeners();
    for (const port of PORTS) startApi(port);
    for (let i = 0; i < PORTS.length; i++)
      await waitFor(async () => ((await fetch(`${base(i)}/readyz`).catch(() => null))?.ok ? true : undefined), {
        what: `API process ${i} ready`,
        deadlineMs: 60_000,
      });
    await waitFor(async () => ((await listeners()) >= before + PORTS.length ? true : undefined), {
      what: 'both processes listening for key changes',
      deadlineMs: 30_000,
    });
  }, 90_000);
  afterAll(() => {
    for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
  });

  const get = (i: number, key: string) => fetch(`${base(i)}/api/integrations/v1/orders`, { headers: { authorization: `Bearer ${key}` } });
  const revoke = (i: number, id: string) =>
    fetch(`${base(i)}/api/platform/v1/merchants/${m.id}/api-keys/${id}`, { method: 'DELETE', headers: { authorization: `Bearer ${OPERATOR_TOKEN}` } });

  it('a key revoked through process A is refused by process B on its next request', async () => {
    for (let round = 0; round < 20; round++) {
      const key = await m.key(['orders.read']);
      const id = await keyId(key);
      // B has looked the key up and answers it from its cache.
      expect((await get(1, key)).status).toBe(200);
      expect((await get(1, key)).status).toBe(200);
      expect((await revoke(0, id)).status).toBe(200);
      const refused = await get(1, key);
      expect(refused.status).toBe(401);
      expect(((await refused.json()) as { detail: string }).detail).toBe('This API key has been revoked.');
      expect((await get(0, key)).status).toBe(401);
    }
  });

  it('a revocation written by anything else (an older version during a rolling deploy, psql) is heard too', async () => {
    const key = await m.key(['orders.read']);
    const id = await keyId(key);
    for (const i of [0, 1]) {
      expect((await get(i, key)).status).toBe(200);
      expect((await get(i, key)).status).toBe(200);
    }
    // The statement an older version's revoke ran: it announced nothing, and both processes kept the key.
    await sql`update api_keys set revoked_at = clock_timestamp() where id = ${id}`.execute(t.database.db);
    for (const i of [0, 1]) await expect.poll(async () => (await get(i, key)).status, { timeout: 5_000, interval: 50 }).toBe(401);
  });

  it("a revocation while B's LISTEN connection is down is not missed", async () => {
    const key = await m.key(['orders.read']);
    const id = await keyId(key);
    expect((await get(1, key)).status).toBe(200);
    const count = await listeners();
    // End one process's LISTEN session (whichever): every listening process must stay correct.
    await sql`select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'api-key-changes' and datname = current_database() and pid <> pg_backend_pid()`.execute(
      t.database.db,
    );
    await waitFor(async () => ((await listeners()) < count ? true : undefined), { what: 'the listeners to be gone', deadlineMs: 15_000 });
    expect((await revoke(0, id)).status).toBe(200);
    expect((await get(1, key)).status).toBe(401);
    await waitFor(async () => ((await listeners()) >= count ? true : undefined), { what: 'the listeners to be back', deadlineMs: 30_000 });
    const again = await m.key(['orders.read']);
    expect((await get(1, again)).status).toBe(200);
    expect((await get(1, again)).status).toBe(200);
    expect((await revoke(0, await keyId(again))).status).toBe(200);
    expect((await get(1, again)).status).toBe(401);
  });
});
