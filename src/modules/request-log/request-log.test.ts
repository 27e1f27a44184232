// The API request log over HTTP: recorded off the request path, filterable in the portal, found by
// X-Request-Id by merchants and operators, purged by age; the portal overview's request counts.
import pino from 'pino';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { monotonicUuidV7 } from '../../db/uuid7.ts';
import { createRequestLog } from '../../http/request-log.ts';
import { purgeExpired, retentionSteps } from '../../maintenance/retention.ts';
import { json, onPostgres, portalJson, problem, startMerchantApp, type Problem, type TestApp, type TestMerchant } from '../../../test/helpers.ts';
import { portalCall, portalUser, type PortalSession } from '../../../test/fixtures.ts';

let t: TestApp;
let m: TestMerchant;
let s: PortalSession;

const call = (method: string, url: string, payload?: unknown) => portalCall(t, s, method, url, payload);

beforeAll(async () => {
  ({ t, m } = await startMerchantApp({ config: { webhookRetrySchedule: [0, 0] }, locations: 2 }));
  s = await portalUser(t, m, 'ops@console.test');
});
afterAll(() => t?.close());

describe('API request log', () => {
  let keyId: string;
  let secret: string;
  let otherKeyId: string;
  let otherSecret: string;

  beforeAll(async () => {
    const k = portalJson(await call('POST', '/api-keys', { label: 'Acme 3PL', scopes: ['orders.read'] }), 201, 'POST /portal/api/api-keys').data;
    [keyId, secret] = [k.id, k.secret];
    const o = portalJson(await call('POST', '/api-keys', { label: 'ERP', scopes: ['products.read'] }), 201, 'POST /portal/api/api-keys').data;
    [otherKeyId, otherSecret] = [o.id, o.secret];
  });

  it('records requests made with a key, newest first, with key label, status, error code and the problem body', async () => {
    const okRes = await t.api(secret, 'GET', '/orders?limit=5');
    expect(okRes.statusCode).toBe(200);
    const bad = await t.api(secret, 'GET', '/orders?status=bogus');
    expect(bad.statusCode).toBe(422);
    const denied = await t.api(secret, 'GET', '/products');
    expect(denied.statusCode).toBe(403);
    const none = await t.api(null, 'GET', '/orders');
    expect(none.statusCode).toBe(401);

    const log = portalJson(await call('GET', '/request-log'), 200, 'GET /portal/api/request-log');
    expect(log.data.map((e: { request_id: string }) => e.request_id)).toEqual([
      denied.headers['x-request-id'],
      bad.headers['x-request-id'],
      okRes.headers['x-request-id'],
    ]);
    const [d, b, o] = log.data;
    expect(o).toMatchObject({
      method: 'GET',
      path: '/api/integrations/v1/orders',
      query: 'limit=5',
      status: 200,
      error_code: null,
      api_key: { id: keyId, label: 'Acme 3PL' },
    });
    expect(o.duration_ms).toBeGreaterThan(0);
    expect(o).not.toHaveProperty('problem');
    expect(b).toMatchObject({ status: 422, error_code: 'validation_failed', query: 'status=bogus' });
    expect(d).toMatchObject({ status: 403, error_code: 'insufficient_scope', path: '/api/integrations/v1/products' });

    const found = portalJson(await call('GET', `/request-log/${bad.headers['x-request-id']}`), 200, 'GET /portal/api/request-log/:request_id').data;
    expect(found.problem).toEqual(JSON.parse(bad.body));
    // The log keeps the problem as sent (any problem body): read it as the document's Problem.
    expect((found.problem as Problem).errors?.[0].path).toBe('/status');
  });

  it('a secret sent in the URL is not kept: API keys, signing secrets and values of parameters named like credentials', async () => {
    const sent = [
      [`/orders?api_key=${secret}&status=open`, 'query', 'api_key=[redacted]&status=open'],
      [`/orders/${secret}`, 'path', '/api/integrations/v1/orders/[redacted]'],
      [
        '/orders?access_token=abc123&limit=1&Client-Secret=s3&SIGNATURE=x',
        'query',
        'access_token=[redacted]&limit=1&Client-Secret=[redacted]&SIGNATURE=[redacted]',
      ],
      ['/orders?note=whsec_AbC-12_x&limit=2', 'query', 'note=[redacted]&limit=2'],
      ['/orders?cursor=abc&limit=3', 'query', 'cursor=abc&limit=3'],
    ] as const;
    for (const [url, field, kept] of sent) {
      const res = await t.api(secret, 'GET', url);
      const entry = portalJson(await call('GET', `/request-log/${res.headers['x-request-id']}`), 200, 'GET /portal/api/request-log/:request_id').data;
      expect([url, entry[field]]).toEqual([url, kept]);
    }
    // The problem the answer carried quotes the path (no route) or names the parameter (unknown):
    // it is kept without the secret too (it was kept as sent).
    const problems = [
      [`/foo/${secret}`, { path: '/api/integrations/v1/foo/[redacted]', query: null }, 'No route GET /api/integrations/v1/foo/[redacted]', []],
      [`/orders?${secret}=1`, { path: '/api/integrations/v1/orders', query: '[redacted]' }, '/[redacted] is not a known field', ['/[redacted]']],
      ['/foo/whsec_AbC-12_x', { path: '/api/integrations/v1/foo/[redacted]', query: null }, 'No route GET /api/integrations/v1/foo/[redacted]', []],
    ] as const;
    for (const [url, where, detail, paths] of problems) {
      const res = await t.api(secret, 'GET', url);
      expect(res.body.includes(url.includes('whsec_') ? 'whsec_AbC-12_x' : secret)).toBe(true); // the answer itself quotes what was sent
      const entry = portalJson(await call('GET', `/request-log/${res.headers['x-request-id']}`), 200, 'GET /portal/api/request-log/:request_id').data;
      const stored = entry.problem as Problem;
      expect([url, entry.path, entry.query, stored.detail, (stored.errors ?? []).map((e) => e.path)]).toEqual([url, where.path, where.query, detail, paths]);
    }
    const leaked = await t.database.db
      .selectFrom('request_log')
      .select('request_id')
      .where((eb) =>
        eb.or([
          eb('query', 'like', `%${secret}%`),
          eb('path', 'like', `%${secret}%`),
          eb('query', 'like', '%whsec_%'),
          eb(sql<string>`problem::text`, 'like', `%${secret}%`),
          eb(sql<string>`problem::text`, 'like', '%whsec_%'),
        ]),
      )
      .execute();
    expect(leaked).toEqual([]);
  });

  it("a path no route takes, sent with a key, is in that key's log (a mistyped URL was missing); without a key it is 401, like any other", async () => {
    const res = await t.api(secret, 'GET', '/ordrs?limit=5');
    expect(problem(res, 404).detail).toBe('No route GET /api/integrations/v1/ordrs.');
    const entry = portalJson(await call('GET', `/request-log/${res.headers['x-request-id']}`), 200, 'GET /portal/api/request-log/:request_id').data;
    expect(entry).toMatchObject({ path: '/api/integrations/v1/ordrs', query: 'limit=5', status: 404, error_code: 'not_found', api_key: { id: keyId } });
    expect(problem(await t.api(null, 'GET', '/ordrs'), 401).code).toBe('unauthorized');
  });

  it('filters by key, status class, path and request id, and pages', async () => {
    await t.api(otherSecret, 'GET', '/products?limit=1');
    await t.api(otherSecret, 'GET', '/products/00000000-0000-4000-8000-000000000000');
    const byKey = portalJson(await call('GET', `/request-log?key_id=${otherKeyId}`), 200, 'GET /portal/api/request-log').data;
    expect(byKey.map((e: { status: number }) => e.status)).toEqual([404, 200]);
    const errors = portalJson(await call('GET', `/request-log?key_id=${otherKeyId}&status_class=4xx`), 200, 'GET /portal/api/request-log').data;
    expect(errors.map((e) => e.error_code)).toEqual(['not_found']);
    const ok = portalJson(await call('GET', '/request-log?status_class=2xx'), 200, 'GET /portal/api/request-log').data;
    expect(ok.every((e: { status: number }) => e.status >= 200 && e.status < 300)).toBe(true);
    expect(ok.length).toBe(2);
    const byPath = portalJson(await call('GET', '/request-log?path=PRODUCTS/0000'), 200, 'GET /portal/api/request-log').data;
    expect(byPath.map((e: { path: string }) => e.path)).toEqual(['/api/integrations/v1/products/00000000-0000-4000-8000-000000000000']);
    const first = portalJson(await call('GET', '/request-log?limit=2'), 200, 'GET /portal/api/request-log');
    expect(first.data).toHaveLength(2);
    const next = portalJson(await call('GET', `/request-log?limit=2&before=${first.next_before}`), 200, 'GET /portal/api/request-log');
    expect(next.data[0].id < first.data[1].id).toBe(true);
    expect(problem(await call('GET', '/request-log?status_class=1xx'), 422).errors?.[0].path).toBe('/status_class');
  });

  it("logs a revoked key's 401 under that key; requests without a known key are not logged", async () => {
    const k = portalJson(await call('POST', '/api-keys', { label: 'Old', scopes: ['orders.read'] }), 201, 'POST /portal/api/api-keys').data;
    portalJson(await call('POST', `/api-keys/${k.id}/revoke`), 200, 'POST /portal/api/api-keys/:id/revoke');
    const res = await t.api(k.secret, 'GET', '/orders');
    expect(res.statusCode).toBe(401);
    const entries = portalJson(await call('GET', `/request-log?key_id=${k.id}`), 200, 'GET /portal/api/request-log').data;
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ status: 401, error_code: 'unauthorized', request_id: res.headers['x-request-id'] });
    const all = portalJson(await call('GET', '/request-log?limit=100'), 200, 'GET /portal/api/request-log').data;
    expect(all.some((e: { status: number; api_key: { id: string } }) => e.status === 401 && e.api_key.id !== k.id)).toBe(false);
  });

  it('operators find a request by X-Request-Id; another merchant cannot', async () => {
    const res = await t.api(secret, 'GET', '/orders?status=nope');
    const requestId = String(res.headers['x-request-id']);
    const found = json(await t.op('GET', `/requests/${requestId}`), 200, 'findRequest').data;
    expect(found).toMatchObject({ merchant_id: m.id, request_id: requestId, status: 422, api_key: { id: keyId, label: 'Acme 3PL' } });
    // The document leaves the stored problem open (any problem body): read its code explicitly.
    expect((found.problem as { code: string }).code).toBe('validation_failed');
    expect(json(await t.op('GET', '/requests/00000000-0000-4000-8000-000000000000'), 404, 'findRequest').code).toBe('not_found');

    const other = await t.merchant();
    json(await other.op('POST', '/users', { email: 'other@console.test', password: 'correct horse battery' }), 201, 'createPortalUser');
    const login = await t.app.inject({ method: 'POST', url: '/portal/api/login', payload: { email: 'other@console.test', password: 'correct horse battery' } });
    const cookie = String(login.headers['set-cookie']).split(';')[0];
    const theirs = await t.app.inject({ method: 'GET', url: `/portal/api/request-log/${requestId}`, headers: { cookie } });
    expect(problem(theirs, 404).code).toBe('not_found');
    expect(
      portalJson(await t.app.inject({ method: 'GET', url: '/portal/api/request-log', headers: { cookie } }), 200, 'GET /portal/api/request-log').data,
    ).toEqual([]);
  });

  it('the retention job deletes entries older than REQUEST_LOG_RETENTION_DAYS', async () => {
    const res = await t.api(secret, 'GET', '/orders');
    await t.app.requestLog.flush();
    // Made 8 days ago: its id (UUIDv7) says when it came in, as its created_at does.
    const eightDaysAgo = (Date.now() - 8 * 86_400_000).toString(16).padStart(12, '0');
    const requestId = `${eightDaysAgo.slice(0, 8)}-${eightDaysAgo.slice(8)}${String(res.headers['x-request-id']).slice(13)}`;
    await t.database.db
      .updateTable('request_log')
      .set({ request_id: requestId, created_at: sql`clock_timestamp() - interval '8 days'` as never })
      .where('request_id', '=', String(res.headers['x-request-id']))
      .execute();
    expect((await call('GET', `/request-log/${requestId}`)).statusCode).toBe(200);
    const before = await t.database.db
      .selectFrom('request_log')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow();
    const counts = await purgeExpired(t.database.db, retentionSteps({ ...t.config, requestLogRetentionDays: 7 }), pino({ level: 'silent' }));
    expect(counts.request_log).toBe(1);
    const after = await t.database.db
      .selectFrom('request_log')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n) - 1);
    expect((await call('GET', `/request-log/${requestId}`)).statusCode).toBe(404);
  });

  it('the writer batches, bounds its buffer and writes what is left on close', async () => {
    const warnings: unknown[] = [];
    const writer = createRequestLog(t.database.db, { warn: (o: unknown) => void warnings.push(o), error: () => {} } as never, {
      enabled: true,
      maxBuffered: 3,
      batchSize: 2,
      flushMs: 60_000,
    });
    const entry = (i: number) => ({
      merchantId: m.id,
      apiKeyId: keyId,
      requestId: monotonicUuidV7(),
      method: 'GET',
      url: `/x/${i}?a=b`,
      status: 200,
      errorCode: null,
      durationMs: 1.25,
      problem: null,
      at: new Date(),
    });
    t.database.queries.length = 0;
    for (let i = 0; i < 5; i++) writer.record(entry(i));
    await writer.close();
    expect(writer.dropped).toBe(2);
    const rows = await t.database.db
      .selectFrom('request_log')
      .select(['path', 'query', 'duration_ms'])
      .where('path', 'like', '/x/%')
      .orderBy('request_id')
      .execute();
    expect(rows).toEqual([
      { path: '/x/0', query: 'a=b', duration_ms: 1.3 },
      { path: '/x/1', query: 'a=b', duration_ms: 1.3 },
      { path: '/x/2', query: 'a=b', duration_ms: 1.3 },
    ]);
    expect(t.database.queries.filter((q) => q.startsWith('insert into "request_log"'))).toHaveLength(2);
    expect(warnings).toEqual([{ dropped: 2 }]);
  });

  it("the writer's buffer is bounded in characters too, and keeps of a long URL only what is stored", async () => {
    const writer = createRequestLog(t.database.db, { warn: () => {}, error: () => {} } as never, {
      enabled: true,
      maxBufferedChars: 3_100,
      flushMs: 60_000,
    });
    const entry = (i: number, url: string) => ({
      merchantId: m.id,
      apiKeyId: keyId,
      requestId: monotonicUuidV7(),
      method: 'GET',
      url,
      status: 200,
      errorCode: null,
      durationMs: 1,
      problem: null,
      at: Date.now(),
    });
    // 16 KB sent; 2,048 characters of path and 1,000 of query stored, so 3,049 held.
    writer.record(entry(0, `/chars/${'a'.repeat(8_000)}?q=${'b'.repeat(8_000)}`));
    writer.record(entry(1, '/chars/short'));
    writer.record(entry(2, `/chars/${'c'.repeat(100)}`));
    await writer.close();
    expect(writer.dropped).toBe(1);
    const rows = await t.database.db.selectFrom('request_log').select(['path', 'query']).where('path', 'like', '/chars/%').orderBy('request_id').execute();
    expect(rows).toEqual([
      { path: `/chars/${'a'.repeat(2_041)}`, query: `q=${'b'.repeat(998)}` },
      { path: '/chars/short', query: null },
    ]);
  });

  it('under load the writer writes full batches: entries recorded during a write wait for the next trigger', async () => {
    const writer = createRequestLog(t.database.db, { warn: () => {}, error: () => {} } as never, { enabled: true, batchSize: 4, flushMs: 60_000 });
    const entry = (i: number) => ({
      merchantId: m.id,
      apiKeyId: keyId,
      requestId: monotonicUuidV7(),
      method: 'GET',
      url: `/load/${i}`,
      status: 200,
      errorCode: null,
      durationMs: 1,
      problem: null,
      at: Date.now(),
    });
    const logged = async () =>
      (await t.database.db.selectFrom('request_log').select('path').where('path', 'like', '/load/%').orderBy('request_id').execute()).map((r) => r.path);
    const inserts = () => t.database.queries.filter((q) => q.startsWith('insert into "request_log"')).length;
    t.database.queries.length = 0;
    // The fourth entry fills a batch and starts its write; three more arrive while it is written
    // (the statement is reported when it has run, before the writer resumes).
    const queries = t.database.queries;
    let during = false;
    queries.push = (...qs: string[]) => {
      if (!during && qs[0].startsWith('insert into "request_log"')) {
        during = true;
        for (let i = 4; i < 7; i++) writer.record(entry(i));
      }
      return Array.prototype.push.apply(queries, qs);
    };
    try {
      for (let i = 0; i < 4; i++) writer.record(entry(i));
      await vi.waitFor(async () => expect(await logged()).toHaveLength(4));
      await new Promise((r) => setTimeout(r, 200));
      expect(during).toBe(true);
    } finally {
      Reflect.deleteProperty(queries, 'push');
    }
    // They stay buffered (no second, smaller INSERT right behind the first) ...
    expect(await logged()).toEqual(['/load/0', '/load/1', '/load/2', '/load/3']);
    expect(inserts()).toBe(1);
    // ... until the next trigger: here the batch they complete.
    writer.record(entry(7));
    await vi.waitFor(async () => expect(await logged()).toHaveLength(8));
    expect(inserts()).toBe(2);
    await writer.close();
    expect(inserts()).toBe(2);
  });

  it('a flush runs no check per row: the log has no foreign keys (0011_request_log_unchecked)', async () => {
    const { rows } = await sql<{ conname: string }>`
      select conname from pg_constraint where conrelid = 'request_log'::regclass and contype = 'f' order by conname`.execute(t.database.db);
    expect(rows).toEqual([]);
    // Only keys read from api_keys are logged (a key not found is not logged at all, see above), so
    // every row still names a key and merchant that exist.
    await t.api(secret, 'GET', '/orders?limit=1');
    await t.app.requestLog.flush();
    const { rows: orphans } = await sql<{ n: number }>`
      select count(*)::int n from request_log r
       where not exists (select 1 from api_keys k where k.id = r.api_key_id and k.merchant_id = r.merchant_id)`.execute(t.database.db);
    expect(orphans).toEqual([{ n: 0 }]);
  });
  it('an entry whose problem is cut inside a surrogate pair, or holds a NUL, is still stored (one bad entry never loses a batch)', async () => {
    const writer = createRequestLog(t.database.db, { warn: () => {}, error: () => {} } as never, { enabled: true, batchSize: 10, flushMs: 60_000 });
    const at = new Date();
    const entry = (i: number, problem: string) => ({
      merchantId: m.id,
      apiKeyId: keyId,
      requestId: monotonicUuidV7(),
      method: 'GET',
      url: `/cut/${i}`,
      status: 422,
      errorCode: 'validation_failed',
      durationMs: 1,
      problem,
      at,
    });
    // 16,383 ASCII characters then an emoji: a cut at 16,384 characters falls between its two halves.
    writer.record(entry(1, 'x'.repeat(16_383) + '\u{1F600}' + 'y'.repeat(10)));
    writer.record(entry(2, JSON.stringify({ detail: 'nul \u0000 and lone \ud800' })));
    writer.record(entry(3, '{"detail":"fine"}'));
    await writer.close();
    const rows = await t.database.db.selectFrom('request_log').select(['path', 'problem']).where('path', 'like', '/cut/%').orderBy('path').execute();
    expect(rows.map((r) => r.path)).toEqual(['/cut/1', '/cut/2', '/cut/3']);
    const [cut, nul, fine] = rows.map((r) => r.problem as Record<string, unknown>);
    expect(cut).toEqual({ truncated: true, excerpt: 'x'.repeat(16_383) + '\uFFFD' });
    expect(nul).toEqual({ detail: 'nul \uFFFD and lone \uFFFD' });
    expect(fine).toEqual({ detail: 'fine' });
  });

  it.runIf(onPostgres())('on PostgreSQL a batch is one COPY, and every character of a path, query and problem survives it', async () => {
    const writer = createRequestLog(t.database.db, { warn: () => {}, error: () => {} } as never, {
      enabled: true,
      batchSize: 10,
      flushMs: 60_000,
      pool: t.database.pool,
    });
    const at = Date.now();
    const entry = (i: number, url: string, problem: string | null) => ({
      merchantId: m.id,
      apiKeyId: keyId,
      requestId: monotonicUuidV7(),
      method: 'GET',
      url,
      status: problem ? 422 : 200,
      errorCode: problem ? 'validation_failed' : null,
      durationMs: 2.25,
      problem,
      at,
    });
    // COPY's text format gives backslash, tab, newline, carriage return and \N a meaning of their own.
    writer.record(entry(1, '/copy/1/a\\b\tc\nd\re\\N?q=\\N&t=\t', '{"detail":"back\\\\slash \\t tab\\n \\\\N"}'));
    writer.record(entry(2, '/copy/2', null));
    t.database.queries.length = 0;
    await writer.close();
    expect(t.database.queries.filter((q) => q.includes('request_log'))).toEqual([]);
    const rows = await t.database.db
      .selectFrom('request_log')
      .select(['path', 'query', 'status', 'error_code', 'duration_ms', 'problem', 'created_at'])
      .where('path', 'like', '/copy/%')
      .orderBy('path')
      .execute();
    expect(rows).toEqual([
      {
        path: '/copy/1/a\\b\tc\nd\re\\N',
        query: 'q=\\N&t=\t',
        status: 422,
        error_code: 'validation_failed',
        duration_ms: 2.3,
        problem: { detail: 'back\\slash \t tab\n \\N' },
        created_at: new Date(at),
      },
      { path: '/copy/2', query: null, status: 200, error_code: null, duration_ms: 2.3, problem: null, created_at: new Date(at) },
    ]);
  });

  it('a request-log or events page cursor that is not a real position is 422, never a 500', async () => {
    for (const before of ['9999999999999999999', '9223372036854775808', '999999999999999999']) {
      const res = await call('GET', `/request-log?before=${before}`);
      expect(res.statusCode).toBe(422);
      expect([...new Set(problem(res, 422).errors?.map((e: { path: string }) => e.path))]).toEqual(['/before']);
    }
    for (const before of [
      '2026-13-01T00:00:00.000Z_00000000-0000-4000-8000-000000000000',
      '2026-01-01T00:00:00.000Z_------------------------------------',
      '2020-12-31T23:59:60.000Z_00000000-0000-4000-8000-000000000000',
    ]) {
      const res = await call('GET', `/events?before=${encodeURIComponent(before)}`);
      expect(res.statusCode).toBe(422);
      expect([...new Set(problem(res, 422).errors?.map((e: { path: string }) => e.path))]).toEqual(['/before']);
    }
    expect(portalJson(await call('GET', `/request-log?before=ffffffff-ffff-7fff-bfff-ffffffffffff`), 200, 'GET /portal/api/request-log').data).toBeInstanceOf(
      Array,
    );
    expect(
      portalJson(
        await call('GET', `/events?before=${encodeURIComponent('2026-01-01T00:00:00.000Z_00000000-0000-4000-8000-000000000000')}`),
        200,
        'GET /portal/api/events',
      ).data,
    ).toBeInstanceOf(Array);
  });
});

describe('overview', () => {
  it('the overview shows active keys, endpoint health and request counts for the last 24 hours by hour', async () => {
    const overview = portalJson(await call('GET', '/overview'), 200, 'GET /portal/api/overview').data;
    expect(overview.keys.map((k: { label: string }) => k.label).sort()).toEqual(['Acme 3PL', 'ERP']);
    const { total, errors, error_rate, hours } = overview.requests;
    const counted = await t.database.db
      .selectFrom('request_log')
      .select([sql<string>`count(*)`.as('n'), sql<string>`count(*) filter (where status >= 400)`.as('e')])
      .where('merchant_id', '=', m.id)
      .executeTakeFirstOrThrow();
    expect([total, errors]).toEqual([Number(counted.n), Number(counted.e)]);
    expect(total).toBeGreaterThan(5);
    expect(error_rate).toBeCloseTo(errors / total, 10);
    expect(hours).toHaveLength(24);
    expect(hours.reduce((n: number, h: { total: number }) => n + h.total, 0)).toBe(total);
    expect(hours[23].total).toBe(total);
  });
});
