// The shared HTTP layer: auth, errors, validation, paging, rate limits, PGlite lock (the operator API's merchants and
// portal users: src/modules/merchants/merchants.test.ts).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lockDataDir } from '../src/db/database.ts';
import { ISO_TIMESTAMP, expectProblem, json, startTestApp, untypedJson, walk, type TestApp, type TestMerchant } from './helpers.ts';
import type { DocumentShape } from './contract.ts';

let t: TestApp;
let m: TestMerchant;
let readKey: string;

beforeAll(async () => {
  t = await startTestApp();
  m = await t.merchant();
  readKey = await m.key(['products.read']);
});
afterAll(() => t?.close());

describe('authentication', () => {
  it('no key answers 401 problem+json with WWW-Authenticate and a matching X-Request-Id', async () => {
    const res = await t.api(null, 'GET', '/tags');
    expectProblem(res, 401, 'unauthorized');
    expect(res.headers['www-authenticate']).toBe('Bearer');
  });

  it('request ids are UUIDv7: they carry the time the request came in, so later requests sort after earlier ones', async () => {
    const before = Date.now();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await t.api(readKey, 'GET', '/products?limit=1');
      expect(res.statusCode).toBe(200);
      ids.push(String(res.headers['x-request-id']));
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    for (const id of ids) {
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      const ms = parseInt(id.replaceAll('-', '').slice(0, 12), 16);
      expect(ms).toBeGreaterThanOrEqual(before);
      expect(ms).toBeLessThanOrEqual(Date.now());
    }
    expect([...ids].sort()).toEqual(ids);
  });

  it('an unknown key answers 401', async () => {
    expectProblem(await t.api('mia_sk_notarealkeyatall', 'GET', '/tags'), 401, 'unauthorized');
    expectProblem(await t.api('garbage', 'GET', '/tags'), 401, 'unauthorized');
  });

  it('a malformed Authorization header answers 401', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/integrations/v1/tags', headers: { authorization: `Basic ${readKey}` } });
    expectProblem(res, 401, 'unauthorized');
  });

  it('a revoked key answers 401 at once, and the record shows revoked_at', async () => {
    const created = await m.op('POST', '/api-keys', { label: 'to revoke', scopes: ['products.read'] });
    const res = json(created, 201, 'createApiKey');
    // The create points at the record's GET (contract §1), in the operator API too.
    expect(created.headers.location).toBe(`/api/platform/v1/merchants/${m.id}/api-keys/${res.data.id}`);
    expect(
      json(
        await t.app.inject({ method: 'GET', url: String(created.headers.location), headers: { authorization: `Bearer ${t.config.platformAdminToken}` } }),
        200,
        'getApiKey',
      ).data.id,
    ).toBe(res.data.id);
    expect(res.data.secret).toMatch(/^mia_sk_[A-Za-z0-9_-]{43}$/);
    expect(res.data.prefix).toBe(res.data.secret.slice(0, 13));
    expect(res.data.location_ids).toBeNull();
    expect(json(await t.api(res.data.secret, 'GET', '/tags'), 200, 'listTags').data).toEqual([]);
    const revoked = json(await m.op('DELETE', `/api-keys/${res.data.id}`), 200, 'revokeApiKey').data;
    expect(revoked.revoked_at).toMatch(ISO_TIMESTAMP);
    expect(revoked.last_used_at).not.toBeNull();
    expect(revoked).not.toHaveProperty('secret');
    expectProblem(await t.api(res.data.secret, 'GET', '/tags'), 401, 'unauthorized');
  });

  it('Bearer is preferred over X-API-Key; X-API-Key works alone', async () => {
    const noScope = await m.key(['orders.read']);
    const both = await t.app.inject({ method: 'GET', url: '/api/integrations/v1/tags', headers: { authorization: `Bearer ${noScope}`, 'x-api-key': readKey } });
    expectProblem(both, 403, 'insufficient_scope');
    const both2 = await t.app.inject({
      method: 'GET',
      url: '/api/integrations/v1/tags',
      headers: { authorization: `Bearer ${readKey}`, 'x-api-key': noScope },
    });
    expect(both2.statusCode).toBe(200);
    const alone = await t.app.inject({ method: 'GET', url: '/api/integrations/v1/tags', headers: { 'x-api-key': readKey } });
    expect(alone.statusCode).toBe(200);
  });

  it('every read the document guards with a scope answers a key holding just that scope, and refuses one without it', async () => {
    const doc = t.app.openApiDocuments().integration as unknown as {
      paths: Record<string, Record<string, { operationId: string; security?: Record<string, string[]>[]; description: string }>>;
    };
    const guarded = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops)
        .filter(([method, op]) => method === 'get' && !path.includes('{') && op.security)
        .map(([, op]) => ({ path: path.replace('/api/integrations/v1', ''), op })),
    );
    expect(guarded.map((g) => g.path)).toEqual([
      '/products',
      '/collections',
      '/social-videos',
      '/orders',
      '/fulfillments',
      '/inventory',
      '/vendors',
      '/tags',
      '/media-assets',
    ]);
    for (const { path, op } of guarded) {
      const [scope] = op.security![0].bearerAuth;
      expect(op.security).toEqual([{ bearerAuth: [scope] }, { apiKeyHeader: [scope] }]);
      expect(op.description, path).toContain(`Requires the scope \`${scope}\``);
      expect((await t.api(await m.key([scope]), 'GET', path)).statusCode, `${path} with ${scope}`).toBe(200);
      const other = scope === 'orders.read' ? 'products.read' : 'orders.read';
      expect(expectProblem(await t.api(await m.key([other]), 'GET', path), 403, 'insufficient_scope').detail, path).toContain(scope);
    }
  });

  it('a key without the scope answers 403 insufficient_scope naming it', async () => {
    const key = await m.key(['orders.read']);
    const body = expectProblem(await t.api(key, 'GET', '/vendors'), 403, 'insufficient_scope');
    expect(body.detail).toContain('products.read');
  });

  it("an unknown scope or another merchant's location is refused when creating a key", async () => {
    const bad = expectProblem(await m.op('POST', '/api-keys', { label: 'x', scopes: ['products.read', 'products.delete'] }), 422, 'validation_failed');
    expect(bad.errors?.map((e: { path: string }) => e.path)).toContain('/scopes/1');
    const other = await t.merchant();
    const loc = expectProblem(
      await m.op('POST', '/api-keys', { label: 'x', scopes: ['orders.read'], location_ids: [other.locations[0]] }),
      422,
      'validation_failed',
    );
    expect(loc.errors).toEqual([{ path: '/location_ids/0', message: 'is not a location of this merchant', code: 'unknown_id' }]);
  });
});

describe('validation and errors', () => {
  it('unknown body fields answer 422 with a JSON pointer for each', async () => {
    const body = expectProblem(await m.op('POST', '/locations', { name: 'X', colour: 'red', size: 2 }), 422, 'validation_failed');
    expect(body.errors).toEqual([
      { path: '/colour', message: 'is not a known field', code: 'unknown_field' },
      { path: '/size', message: 'is not a known field', code: 'unknown_field' },
    ]);
  });

  it('every broken field is reported, nested ones by pointer, and bodies are not coerced', async () => {
    const body = expectProblem(await m.op('POST', '/api-keys', { label: 5, scopes: [] }), 422, 'validation_failed');
    expect(body.errors?.map((e: { path: string }) => e.path).sort()).toEqual(['/label', '/scopes']);
  });

  it('unknown query parameters and out-of-range limits answer 422', async () => {
    const unknown = expectProblem(await t.api(readKey, 'GET', '/tags?colour=red'), 422, 'validation_failed');
    expect(unknown.errors).toEqual([{ path: '/colour', message: 'is not a known field', code: 'unknown_field' }]);
    for (const limit of ['0', '251', 'ten']) {
      const res = expectProblem(await t.api(readKey, 'GET', `/tags?limit=${limit}`), 422, 'validation_failed');
      expect(res.errors?.[0].path).toBe('/limit');
    }
    expect(json(await t.api(readKey, 'GET', '/tags?limit=250'), 200, 'listTags').meta.limit).toBe(250);
    expect(json(await t.api(readKey, 'GET', '/tags'), 200, 'listTags').meta.limit).toBe(50);
    // A number in the query is written as JSON writes it: JavaScript's Number() took all of these.
    for (const limit of ['0x10', '1e1', '%205', '%2B5', '1.0', '05', '']) {
      const res = expectProblem(await t.api(readKey, 'GET', `/tags?limit=${limit}`), 422, 'validation_failed');
      expect([limit, res.errors]).toEqual([limit, [{ path: '/limit', message: 'must be integer', code: 'invalid_type' }]]);
    }
  });

  it('an operation without query parameters refuses unknown ones too: GET by id, integration and operator API', async () => {
    const product = json(await t.api(await m.key(['products.write']), 'POST', '/products', { title: 'Queried' }), 201, 'createProduct').data;
    expect(json(await t.api(readKey, 'GET', `/products/${product.id}`), 200, 'getProduct').data.id).toBe(product.id);
    const res = expectProblem(await t.api(readKey, 'GET', `/products/${product.id}?foo=bar&limit=1`), 422, 'validation_failed');
    expect(res.errors).toEqual([
      { path: '/foo', message: 'is not a known field', code: 'unknown_field' },
      { path: '/limit', message: 'is not a known field', code: 'unknown_field' },
    ]);
    const keyId = json(await m.op('POST', '/api-keys', { label: 'q', scopes: ['products.read'] }), 201, 'createApiKey').data.id;
    expect(expectProblem(await t.op('GET', `/merchants/${m.id}/api-keys/${keyId}?foo=1`), 422, 'validation_failed').errors).toEqual([
      { path: '/foo', message: 'is not a known field', code: 'unknown_field' },
    ]);
  });

  it('malformed JSON is 400, a non-JSON write is 415, a body over 1 MiB is 413', async () => {
    const url = `/api/platform/v1/merchants/${m.id}/locations`;
    const auth = { authorization: 'Bearer test-operator-token' };
    expectProblem(
      await t.app.inject({ method: 'POST', url, headers: { ...auth, 'content-type': 'application/json' }, payload: '{"name":' }),
      400,
      'malformed_request',
    );
    expectProblem(
      await t.app.inject({ method: 'POST', url, headers: { ...auth, 'content-type': 'text/plain' }, payload: 'name=x' }),
      415,
      'unsupported_media_type',
    );
    expectProblem(await t.app.inject({ method: 'POST', url, headers: auth }), 415, 'unsupported_media_type');
    const big = JSON.stringify({ name: 'x'.repeat(1024 * 1024) });
    expectProblem(
      await t.app.inject({ method: 'POST', url, headers: { ...auth, 'content-type': 'application/json' }, payload: big }),
      413,
      'payload_too_large',
    );
  });

  it('a body is UTF-8 JSON as sent: invalid UTF-8 is 400, another charset or a Content-Encoding is 415, nothing written', async () => {
    const url = `/api/platform/v1/merchants/${m.id}/locations`;
    const auth = { authorization: 'Bearer test-operator-token' };
    const send = (payload: Buffer | string, headers: Record<string, string>) =>
      t.app.inject({ method: 'POST', url, headers: { ...auth, 'content-type': 'application/json', ...headers }, payload });
    const names = async () => json(await t.api(readKey, 'GET', '/locations?limit=250'), 200, 'listLocations').data.map((l) => l.name);
    const before = await names();
    // "café" in Latin-1 used to be stored as "caf\ufffd".
    const latin1 = Buffer.from('{"name":"caf\xe9"}', 'latin1');
    expect(expectProblem(await send(latin1, {}), 400, 'malformed_request').detail).toBe('The body is not valid UTF-8.');
    expect(expectProblem(await send(latin1, { 'content-type': 'application/json; charset=iso-8859-1' }), 415, 'unsupported_media_type').detail).toBe(
      'The charset "iso-8859-1" is not supported: send the body as UTF-8 JSON.',
    );
    // A br-labelled plain body used to be applied as if it were not encoded; a gzip one was "not valid JSON".
    for (const encoding of ['br', 'gzip']) {
      expect(expectProblem(await send('{"name":"Zipped"}', { 'content-encoding': encoding }), 415, 'unsupported_media_type').detail).toBe(
        `Content-Encoding "${encoding}" is not supported: send the body uncompressed.`,
      );
    }
    expect(await names()).toEqual(before);
    // UTF-8 stays welcome, labelled or not, and so does an explicit identity encoding.
    for (const headers of [{}, { 'content-type': 'application/json; charset="UTF-8"' }, { 'content-encoding': 'identity' }] as Record<string, string>[]) {
      json(await send(Buffer.from('{"name":"Café ☕"}', 'utf8'), headers), 201, 'createLocation');
    }
    expect((await names()).filter((name) => name === 'Café ☕')).toHaveLength(3);
  });

  it('an unknown route and a non-UUID path id are 404 problems', async () => {
    expectProblem(await t.api(readKey, 'GET', '/nothing-here'), 404, 'not_found');
    expectProblem(await t.op('GET', `/merchants/not-a-uuid/api-keys/${m.id}`), 404, 'not_found');
    expectProblem(await t.op('GET', `/merchants/${m.id}/api-keys/00000000-0000-4000-8000-000000000000`), 404, 'not_found');
  });
});

describe('lists and cursors', () => {
  let ids: string[];
  beforeAll(async () => {
    const created: { id: string; updated_at: string }[] = [];
    for (let i = 0; i < 120; i++) created.push(json(await m.op('POST', '/tags', { name: `tag ${i}` }), 201, 'createTag').data);
    // Two creates can share a millisecond; the list then orders them by id, not by creation.
    created.sort((a, b) => (a.updated_at === b.updated_at ? (a.id < b.id ? -1 : 1) : a.updated_at < b.updated_at ? -1 : 1));
    ids = created.map((r) => r.id);
  });

  it('a 120-row walk with limit 50 returns every id exactly once, in (updated_at, id) order', async () => {
    const { ids: seen, pages } = await walk(t, readKey, '/tags', 50);
    expect(pages).toBe(3);
    expect(seen).toHaveLength(120);
    expect(new Set(seen).size).toBe(120);
    expect(seen).toEqual(ids);
  });

  it('the last page has next_cursor null; pages are full until the end', async () => {
    const first = json(await t.api(readKey, 'GET', '/tags?limit=50'), 200, 'listTags');
    expect(first.data).toHaveLength(50);
    const second = json(await t.api(readKey, 'GET', `/tags?limit=70&cursor=${first.meta.next_cursor}`), 200, 'listTags');
    expect(second.data).toHaveLength(70);
    expect(second.meta).toEqual({ limit: 70, next_cursor: null });
  });

  it('a tampered cursor or one reused with other filters is 400', async () => {
    const first = json(await t.api(readKey, 'GET', '/tags?limit=10'), 200, 'listTags');
    const cursor = first.meta.next_cursor!;
    const [payload, mac] = cursor.split('.');
    const decoded = JSON.parse(Buffer.from(payload, 'base64url').toString());
    decoded.i = '00000000-0000-4000-8000-000000000000';
    const forged = `${Buffer.from(JSON.stringify(decoded)).toString('base64url')}.${mac}`;
    expectProblem(await t.api(readKey, 'GET', `/tags?cursor=${forged}`), 400, 'malformed_request');
    expectProblem(await t.api(readKey, 'GET', `/tags?cursor=${cursor.slice(0, -2)}xx`), 400, 'malformed_request');
    // However a cursor is bad, it is 400 (an empty, over-long or NUL-holding one was 422 by its schema).
    for (const bad of ['', 'x'.repeat(1001), '%00']) {
      expect([bad.slice(0, 5), expectProblem(await t.api(readKey, 'GET', `/tags?cursor=${bad}`), 400, 'malformed_request').detail]).toEqual([
        bad.slice(0, 5),
        'The cursor is invalid, or was made for other filters.',
      ]);
    }
    // Anything appended is tampering too (a third segment used to be ignored).
    expectProblem(await t.api(readKey, 'GET', `/tags?cursor=${cursor}.x`), 400, 'malformed_request');
    expectProblem(await t.api(readKey, 'GET', `/tags?cursor=${cursor}.`), 400, 'malformed_request');
    expectProblem(await t.api(readKey, 'GET', `/tags?cursor=${cursor}&updated_after=2020-01-01T00:00:00.000Z`), 400, 'malformed_request');
    expectProblem(await t.api(readKey, 'GET', `/vendors?cursor=${cursor}`), 400, 'malformed_request');
    expect(json(await t.api(readKey, 'GET', `/tags?cursor=${cursor}&limit=5`), 200, 'listTags').data).toHaveLength(5);
  });

  it('updated_after is strict', async () => {
    const all = json(await t.api(readKey, 'GET', '/tags?limit=250'), 200, 'listTags').data;
    const after = json(await t.api(readKey, 'GET', `/tags?limit=250&updated_after=${all[9].updated_at}`), 200, 'listTags').data;
    expect(after.every((r: { updated_at: string }) => r.updated_at > all[9].updated_at)).toBe(true);
    expect(after.length).toBe(all.filter((r: { updated_at: string }) => r.updated_at > all[9].updated_at).length);
  });

  it("a merchant never sees another merchant's rows", async () => {
    const other = await t.merchant();
    const key = await other.key(['products.read']);
    expect(json(await t.api(key, 'GET', '/tags'), 200, 'listTags').data).toEqual([]);
  });
});

describe('rate limits', () => {
  it('answers draft-10 headers on every response and 429 with Retry-After past the limit', async () => {
    const limited = await startTestApp({ rateLimitPerMinute: 3 }, t.database);
    try {
      const key = readKey;
      const r1 = await limited.api(key, 'GET', '/tags');
      expect(r1.headers['ratelimit-policy']).toBe('"default";q=3;w=60');
      expect(r1.headers['ratelimit']).toMatch(/^"default";r=2;t=\d+$/);
      await limited.api(key, 'GET', '/tags');
      const r3 = await limited.api(key, 'GET', '/tags');
      expect(r3.headers['ratelimit']).toMatch(/^"default";r=0;t=\d+$/);
      const r4 = await limited.api(key, 'GET', '/tags');
      expectProblem(r4, 429, 'rate_limited');
      expect(Number(r4.headers['retry-after'])).toBeGreaterThan(0);
      // Another key has its own budget; the operator API is not limited.
      expect((await limited.api(await m.key(['products.read']), 'GET', '/tags')).statusCode).toBe(200);
      for (let i = 0; i < 5; i++) expect((await limited.op('GET', `/merchants/${m.id}/api-keys/${m.id}`)).statusCode).toBe(404);
    } finally {
      await limited.app.close();
    }
  });
});

describe('rate limits shared through Redis', () => {
  // Runs wherever Redis answers on REDIS_TEST_URL (CI starts one); says so when it is skipped.
  const url = process.env.REDIS_TEST_URL ?? 'redis://127.0.0.1:6379';
  it('two processes (apps) with REDIS_URL share one budget per key', async (ctx) => {
    const net = await import('node:net');
    const reachable = await new Promise<boolean>((resolve) => {
      const u = new URL(url);
      const s = net.connect(Number(u.port || 6379), u.hostname, () => {
        s.end();
        resolve(true);
      });
      s.on('error', () => resolve(false));
    });
    if (!reachable) {
      console.warn(`Redis not reachable at ${url}: shared rate-limit test skipped`);
      ctx.skip();
    }
    const prefix = `t${process.pid}-${Date.now()}-`;
    const a = await startTestApp({ rateLimitPerMinute: 3, redisUrl: url, redisKeyPrefix: prefix }, t.database);
    const b = await startTestApp({ rateLimitPerMinute: 3, redisUrl: url, redisKeyPrefix: prefix }, t.database);
    const { Redis } = await import('ioredis');
    const redis = new Redis(url);
    try {
      const created = json(await m.op('POST', '/api-keys', { label: 'shared budget', scopes: ['products.read'] }), 201, 'createApiKey').data;
      const key = created.secret;
      expect((await a.api(key, 'GET', '/tags')).headers['ratelimit']).toMatch(/^"default";r=2;/);
      expect((await b.api(key, 'GET', '/tags')).headers['ratelimit']).toMatch(/^"default";r=1;/);
      expect((await a.api(key, 'GET', '/tags')).statusCode).toBe(200);
      expectProblem(await b.api(key, 'GET', '/tags'), 429, 'rate_limited');
      // One count per key, named by the key's id (it read `…rl:undefinedundefined-key:…`).
      expect(await redis.keys(`${prefix}rl:*`)).toEqual([`${prefix}rl:key:${created.id}`]);
    } finally {
      await redis.del(...(await redis.keys(`${prefix}*`)), `${prefix}none`);
      redis.disconnect();
      await a.app.close();
      await b.app.close();
    }
  });
});

describe('service endpoints', () => {
  it('healthz, readyz and openapi.json need no key', async () => {
    expect(untypedJson<{ status: string }>(await t.app.inject({ method: 'GET', url: '/healthz' }), 200)).toEqual({ status: 'ok' });
    expect(untypedJson<{ status: string }>(await t.app.inject({ method: 'GET', url: '/readyz' }), 200)).toEqual({ status: 'ready' });
    const doc = untypedJson<DocumentShape>(await t.app.inject({ method: 'GET', url: '/api/integrations/v1/openapi.json' }), 200);
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths).every((p) => p.startsWith('/api/integrations/v1/'))).toBe(true);
  });
});

describe('embedded database lock', () => {
  it('refuses a second owner of a data directory and takes over from a dead one', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mia-lock-'));
    const release = lockDataDir(dir);
    expect(() => lockDataDir(dir)).toThrow(/is in use by process/);
    release();
    fs.writeFileSync(path.join(dir, '.lock'), '999999'); // a pid that is not running
    const again = lockDataDir(dir);
    expect(fs.readFileSync(path.join(dir, '.lock'), 'utf8')).toBe(String(process.pid));
    again();
    fs.rmSync(dir, { recursive: true });
  });

  it("takes over a lock naming this very pid once it is no longer touched (a container's pid 1 after kill -9), not one still kept", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mia-lock-'));
    const lock = path.join(dir, '.lock');
    try {
      // A previous run with the same pid, killed long ago: taken over at once.
      fs.writeFileSync(lock, String(process.pid));
      const old = new Date(Date.now() - 60_000);
      fs.utimesSync(lock, old, old);
      let started = Date.now();
      lockDataDir(dir)();
      expect(Date.now() - started).toBeLessThan(1_000);

      // Killed just now: taken over once its last touch is 3 s old.
      fs.writeFileSync(lock, String(process.pid));
      started = Date.now();
      const release = lockDataDir(dir);
      expect(Date.now() - started).toBeGreaterThanOrEqual(2_900);
      expect(fs.readFileSync(lock, 'utf8')).toBe(String(process.pid));
      release();

      // Still kept by a live process that has this pid in another pid namespace: refused.
      fs.writeFileSync(lock, String(process.pid));
      const keeper = spawn(process.execPath, [
        '-e',
        `setInterval(() => { const t = new Date(); require('fs').utimesSync(${JSON.stringify(lock)}, t, t); }, 200)`,
      ]);
      try {
        await new Promise((r) => setTimeout(r, 300));
        expect(() => lockDataDir(dir)).toThrow(`is in use by process ${process.pid}`);
      } finally {
        keeper.kill();
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 20_000);
});
