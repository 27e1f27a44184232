// Property-based fuzzing of every route the router knows (integration, operator, portal, and any
// added later): path params, query and body built from each route's own schema, with evil values
// mixed in (NUL, lone surrogates, odd UUID and date forms, huge/negative/float numbers, wrong
// types, long strings, deep nesting, __proto__/constructor and duplicate keys, empty bodies, wrong
// content types, unknown query parameters). For every request:
// - no 5xx;
// - every error is application/problem+json with X-Request-Id equal to its request_id;
// - after every 4xx the database is unchanged (test/fingerprint.ts says what a 4xx may write).
// Fixed seed, bounded count and time (FUZZ_RUNS / FUZZ_SECONDS override them).
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RouteEntry } from '../src/app.ts';
import { SCOPES } from '../src/http/scopes.ts';
import { fingerprint } from './fingerprint.ts';
import { dbKind, json, OPERATOR_TOKEN, startTestApp, type TestApp, type TestMerchant } from './helpers.ts';
import { addStock, fulfil, makeProduct, pingedEndpoint, placeOrder, portalLogin } from './fixtures.ts';

const SEED = 20261122;
const RUNS = Number(process.env.FUZZ_RUNS ?? 1500);
const SECONDS = Number(process.env.FUZZ_SECONDS ?? 50);
const SESSION = '<current portal session>';
const WEB_BUILT = fs.existsSync(path.resolve(import.meta.dirname, '../web/dist/index.html'));

let t: TestApp;
let m: TestMerchant;
let key: string;
let portal: { cookie: string; csrf: string };
/** Ids a path, query or body may name: this merchant's records, another merchant's, the sacrificial key. */
const ids: Record<string, string> = {};

async function signIn() {
  portal = await portalLogin(t, 'fuzz@fuzz.test');
}

beforeAll(async () => {
  t = await startTestApp();
  m = await t.merchant({ locations: 2 });
  const other = await t.merchant({ locations: 1, name: 'Other' });
  key = await m.key([...SCOPES]);
  const spare = json(await m.op('POST', '/api-keys', { label: 'spare', scopes: ['orders.read'] }), 201, 'createApiKey').data;
  json(await m.op('POST', '/users', { email: 'fuzz@fuzz.test', password: 'correct horse battery' }), 201, 'createPortalUser');
  const [l1, l2] = m.locations;
  const p = await makeProduct(t, m, 'Fuzz Tee', [
    { sku: 'FUZZ-1', price: 5 },
    { sku: 'FUZZ-2', price: 6 },
  ]);
  await addStock(t, key, p.variants[0].id, l1, 50);
  const order = await placeOrder(m, l1, [{ variant_id: p.variants[0].id, quantity: 3 }]);
  const f = json(await fulfil(t, key, order, [1]), 201, 'createFulfillment').data;
  const collection = json(await t.api(key, 'POST', '/collections', { title: 'Fuzz collection', product_ids: [p.id] }), 201, 'createCollection').data;
  const video = json(
    await t.api(key, 'POST', '/social-videos', { title: 'Fuzz video', video_url: 'https://videos.example.com/f.mp4' }),
    201,
    'createSocialVideo',
  ).data;
  const endpoint = await pingedEndpoint(m, 'https://hooks.example.com/f', ['order.created']);
  const delivery = json(await m.op('GET', `/webhook-endpoints/${endpoint.id}/deliveries`), 200, 'listWebhookDeliveries').data[0];
  const tag = json(await m.op('POST', '/tags', { name: 'fuzz' }), 201, 'createTag').data;
  const asset = json(await m.op('POST', '/media-assets', { url: 'https://img.example.com/f.jpg', kind: 'image' }), 201, 'createMediaAsset').data;
  Object.assign(ids, {
    m: m.id,
    l1,
    l2,
    product: p.id,
    variant: p.variants[0].id,
    variant2: p.variants[1].id,
    order: order.id,
    line: order.line_items[0].id,
    fulfillment: f.id,
    collection: collection.id,
    video: video.id,
    endpoint: endpoint.id,
    delivery: delivery.id,
    tag: tag.id,
    asset: asset.id,
    spareKey: spare.id,
    otherMerchant: other.id,
    otherLocation: other.locations[0],
  });
  await signIn();
});
afterAll(() => t?.close());

// ---- evil values -------------------------------------------------------------------------------

const UUID = '3f2504e0-4f89-11d3-9a0c-0305e82c3301';
const evilStrings = [
  'a\u0000b',
  '\u0000',
  '\ud800',
  'x\udfff',
  '\udc00\ud800',
  '',
  ' ',
  '😀',
  'x'.repeat(70_000),
  'é'.repeat(300),
  `urn:uuid:${UUID}`,
  `{${UUID}}`,
  UUID.replace(/-/g, ''),
  UUID.toUpperCase(),
  `${UUID} `,
  '00000000-0000-0000-0000-000000000000',
  '2020-12-31T23:59:60Z',
  '0000-01-01T00:00:00Z',
  '2020-13-01T00:00:00Z',
  '2021-02-29T00:00:00Z',
  '+275760-09-13T00:00:00Z',
  '-000001-01-01T00:00:00Z',
  '2020-01-01',
  '-1',
  '1e309',
  'NaN',
  'null',
  'true',
  '__proto__',
  'constructor',
  "'; drop table products; --",
  '../../etc/passwd',
  '%00',
  '%E0%A4%A',
  'http://127.0.0.1/',
  'javascript:alert(1)',
  'https://',
  '<script>alert(1)</script>',
  '\r\nX-Injected: 1',
  '\u202e',
  '\ufeff',
];
const evilNumbers = [1e308, -1e308, 2 ** 53 + 1, -(2 ** 63), 2 ** 31, -0, 0.1 + 0.2, 1.005, 0.001, -1, 0, 1e-7, 99_999_999_999.99, 1.5];
const deep = (n: number): unknown => (n === 0 ? 1 : n % 2 ? [deep(n - 1)] : { a: deep(n - 1) });
const evilOthers: unknown[] = [
  true,
  false,
  null,
  [],
  {},
  [null],
  [[]],
  { '': 1 },
  Array(300).fill(1),
  deep(40),
  deep(300),
  JSON.parse('{"__proto__":{"polluted":true}}'),
  { constructor: { prototype: { polluted: true } } },
];
const evil: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...evilStrings) },
  { weight: 2, arbitrary: fc.constantFrom(...evilNumbers) },
  { weight: 2, arbitrary: fc.constantFrom(...evilOthers) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
);

// ---- values from a route's schema --------------------------------------------------------------

type Schema = Record<string, unknown> & { type?: string | string[]; properties?: Record<string, Schema>; required?: string[] };

function idArb() {
  return fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...Object.values(ids)) }, { weight: 1, arbitrary: fc.uuid() });
}

function goodFor(s: Schema): fc.Arbitrary<unknown> {
  if (s.const !== undefined) return fc.constant(s.const);
  if (Array.isArray(s.enum)) return fc.constantFrom(...(s.enum as unknown[]));
  if (Array.isArray(s.anyOf)) return fc.oneof(...(s.anyOf as Schema[]).map(valueFor));
  const type = [s.type].flat()[0];
  switch (type) {
    case 'string': {
      if (s.format === 'uuid') return idArb();
      if (s.format === 'date-time')
        return fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString());
      if (s.format === 'uri') return fc.constantFrom('https://img.example.com/a.jpg', 'https://videos.example.com/v.mp4', 'http://example.com/x');
      if (s.format === 'email') return fc.emailAddress();
      if (typeof s.pattern === 'string') return fc.stringMatching(new RegExp(s.pattern)).map((v) => v.slice(0, Number(s.maxLength ?? 100)));
      return fc.string({ minLength: Number(s.minLength ?? 0), maxLength: Math.min(Number(s.maxLength ?? 30), 30), unit: 'grapheme' });
    }
    case 'integer':
      return fc.integer({ min: Math.max(Number(s.minimum ?? -1e6), -1e9), max: Math.min(Number(s.maximum ?? 1e6), 1e9) });
    case 'number':
      return fc.integer({ min: 0, max: 100_000 }).map((n) => n / 100);
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(valueFor((s.items ?? {}) as Schema), { minLength: Number(s.minItems ?? 0), maxLength: Math.min(Number(s.maxItems ?? 3), 3) });
    case 'object': {
      const props = Object.fromEntries(Object.entries(s.properties ?? {}).map(([k, v]) => [k, valueFor(v)]));
      return fc
        .tuple(
          fc.record(props, { requiredKeys: (s.required ?? []).filter((k) => k in props) }),
          fc.option(fc.tuple(fc.constantFrom('extra', '__proto__', 'constructor', 'a\u0000', 'id'), evil), { freq: 8 }),
        )
        .map(([o, extra]) =>
          extra
            ? JSON.parse(
                JSON.stringify({ ...o }).replace(
                  /^\{/,
                  `{${JSON.stringify(extra[0])}:${JSON.stringify(extra[1]) ?? 'null'}${Object.keys(o).length ? ',' : ''}`,
                ),
              )
            : o,
        );
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

function valueFor(s: Schema): fc.Arbitrary<unknown> {
  return fc.oneof({ weight: 15, arbitrary: goodFor(s) }, { weight: 1, arbitrary: evil });
}

/** Percent-encode anything, lone surrogates included (as the invalid UTF-8 a client could send). */
function encode(value: unknown): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? 'undefined');
  let out = '';
  for (const ch of text) {
    try {
      out += encodeURIComponent(ch);
    } catch {
      out += '%ED%A0%80';
    }
  }
  return out;
}

// ---- requests ----------------------------------------------------------------------------------

interface FuzzRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}

const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'text/plain',
  '',
  'application/x-www-form-urlencoded',
  'application/merge-patch+json',
  'application/json; charset=latin1',
];

function requestFor(route: RouteEntry): fc.Arbitrary<FuzzRequest> {
  const params = [...route.url.matchAll(/:(\w+)/g)].map((x) => x[1]);
  const paramSchemas = ((route.schema?.params as Schema | undefined)?.properties ?? {}) as Record<string, Schema>;
  const pathArb = fc
    .tuple(
      fc.tuple(
        ...params.map((p) =>
          fc.oneof(
            { weight: p === 'm' ? 12 : 6, arbitrary: p === 'm' ? fc.constant(ids.m) : idArb() },
            { weight: 1, arbitrary: paramSchemas[p] ? valueFor(paramSchemas[p]) : evil },
            { weight: 1, arbitrary: fc.constantFrom('%E0%A4%A', '%00', 'a'.repeat(150), `urn:uuid:${UUID}`, '..%2F..', '%ZZ') },
          ),
        ),
      ) as fc.Arbitrary<unknown[]>,
      fc.constantFrom('', 'index.html', 'assets/x.js', '..%2F..%2Fpackage.json', '%E0%A4%A', 'a%00b'),
    )
    .map(([values, wildcard]) => {
      let i = 0;
      return route.url
        .replace(/:(\w+)/g, () => {
          const v = values[i++];
          return typeof v === 'string' && /^(%[0-9A-Z]{2}|%E0%A4%A|%ZZ|\.\.%2F\.\.)/.test(v) ? v : encode(v);
        })
        .replace('*', wildcard);
    });

  const query = route.schema?.querystring as Schema | undefined;
  const queryArb = fc
    .tuple(
      query ? fc.option(goodFor(query), { freq: 4 }) : fc.constant(null),
      fc.option(fc.tuple(fc.constantFrom('limit', 'cursor', 'updated_after', 'sku', 'status', 'unknown', '__proto__', 'a[b]'), evil), { freq: 3 }),
    )
    .map(([q, extra]) => {
      const pairs: string[] = [];
      for (const [k, v] of Object.entries((q as Record<string, unknown>) ?? {})) for (const one of [v].flat()) pairs.push(`${encode(k)}=${encode(one)}`);
      if (extra) pairs.push(`${encode(extra[0])}=${encode(extra[1])}`);
      return pairs.length ? `?${pairs.join('&')}` : '';
    });

  const body = route.schema?.body as Schema | undefined;
  const writes = !['GET', 'HEAD', 'DELETE', 'OPTIONS'].includes(route.method);
  const bodyArb: fc.Arbitrary<string | undefined> = !writes
    ? fc.constant(undefined)
    : fc.oneof(
        { weight: 12, arbitrary: (body ? goodFor(body) : fc.constant({})).map((v) => JSON.stringify(v)) },
        { weight: 1, arbitrary: (body ? goodFor(body) : fc.constant({ a: 1 })).map((v) => JSON.stringify(v).replace(/^\{"([^"]+)":/, '{"$1":null,"$1":')) },
        {
          weight: 1,
          arbitrary: fc.constantFrom(
            undefined,
            '',
            'null',
            '[]',
            '"text"',
            '{',
            '{"a":',
            '{"__proto__":{"polluted":true}}',
            '{"constructor":{"prototype":{"x":1}}}',
            '\ufeff{}',
            '{"a":"\\ud800"}',
            '{"a":"\\u0000"}',
            `[${'['.repeat(20_000)}${']'.repeat(20_000)}]`,
            `{"title":${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}}`,
          ),
        },
        { weight: 1, arbitrary: evil.map((v) => JSON.stringify(v) ?? 'null') },
      );

  const area = route.url.startsWith('/api/platform') ? 'operator' : route.url.startsWith('/portal') ? 'portal' : 'integration';
  const headersArb = fc
    .tuple(
      fc.oneof({ weight: 10, arbitrary: fc.constant('good') }, { weight: 1, arbitrary: fc.constantFrom('none', 'garbage') }),
      writes
        ? fc.oneof({ weight: 8, arbitrary: fc.constant('application/json') }, { weight: 2, arbitrary: fc.constantFrom(...CONTENT_TYPES) })
        : fc.constant(''),
      fc.option(fc.constantFrom('k-1', '"quoted"', 'x'.repeat(300), 'é', ''), { freq: 4 }),
    )
    .map(([auth, type, idempotencyKey]) => {
      const h: Record<string, string> = {};
      if (area === 'operator' && auth !== 'none') h.authorization = auth === 'good' ? `Bearer ${OPERATOR_TOKEN}` : 'Bearer nope';
      if (area === 'integration' && auth !== 'none') h.authorization = auth === 'good' ? `Bearer ${key}` : 'Basic Zm9vOmJhcg==';
      // The session is filled in when the request is sent: a fuzzed sign-out may have replaced it.
      if (area === 'portal' && auth === 'good') Object.assign(h, { cookie: SESSION, 'x-csrf-token': SESSION });
      if (area === 'portal' && auth === 'garbage') h.cookie = 'mia_session=forged';
      if (type) h['content-type'] = type;
      if (idempotencyKey !== null) h['idempotency-key'] = idempotencyKey;
      return h;
    });

  return fc
    .tuple(pathArb, queryArb, bodyArb, headersArb)
    .map(([p, q, b, h]) => ({ method: route.method, url: p + q, headers: h, ...(b !== undefined ? { body: b } : {}) }));
}

// ---- the run -----------------------------------------------------------------------------------

describe(`fuzzing every route (${dbKind()})`, () => {
  it(
    'answers no 5xx, only problem+json errors with matching X-Request-Id, and writes nothing on a 4xx',
    async () => {
      const routes = t.app.routeList.filter((r) => WEB_BUILT || !(r.url === '/portal' || r.url === '/portal/*'));
      if (!WEB_BUILT) console.warn('fuzz: web/dist is not built (npm run build:web); the two portal page routes are left out');
      expect(routes.length).toBeGreaterThan(60);
      const requests = fc.sample(fc.constantFrom(...routes).chain(requestFor), { seed: SEED, numRuns: RUNS });

      const failures: string[] = [];
      const statuses: Record<string, number> = {};
      let serverErrors = 0;
      let sent = 0;
      let before = await fingerprint(t.database.db);
      const deadline = Date.now() + SECONDS * 1000;
      for (const req of requests) {
        if (Date.now() > deadline) break;
        // Renew the portal session when a fuzzed sign-out ended it (the session must outlive the run).
        if ((await t.app.inject({ method: 'GET', url: '/portal/api/session', headers: { cookie: portal.cookie } })).statusCode !== 200) {
          await signIn();
          before = await fingerprint(t.database.db);
        }
        const headers = req.headers.cookie === SESSION ? { ...req.headers, cookie: portal.cookie, 'x-csrf-token': portal.csrf } : req.headers;
        const res = await t.app.inject({ method: req.method as never, url: req.url, headers, ...(req.body !== undefined ? { payload: req.body } : {}) });
        sent++;
        statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
        const what = `${req.method} ${req.url.slice(0, 200)} [${req.headers['content-type'] ?? '-'}] ${String(req.body ?? '').slice(0, 200)} → ${res.statusCode} ${res.body.slice(0, 300)}`;
        if (res.statusCode >= 500) {
          serverErrors++;
          failures.push(`5xx: ${what}`);
          if (process.env.FUZZ_LOG) fs.appendFileSync(process.env.FUZZ_LOG, `${JSON.stringify(req)}\n`);
        }
        if (res.statusCode >= 400) {
          if (!String(res.headers['content-type']).startsWith('application/problem+json')) failures.push(`not problem+json: ${what}`);
          if (req.method !== 'HEAD') {
            let requestId: unknown;
            try {
              requestId = JSON.parse(res.body).request_id;
            } catch {}
            if (!requestId || requestId !== res.headers['x-request-id']) failures.push(`X-Request-Id ≠ request_id: ${what}`);
          }
          const after = await fingerprint(t.database.db);
          const changed = Object.keys(after).filter((k) => after[k] !== before[k]);
          if (changed.length) failures.push(`4xx wrote to ${changed.join(', ')}: ${what}`);
          before = after;
        } else {
          before = await fingerprint(t.database.db);
        }
      }
      console.log(`fuzz (${dbKind()}): ${sent} requests over ${routes.length} routes, ${serverErrors} 5xx, statuses ${JSON.stringify(statuses)}`);
      expect(sent).toBeGreaterThan(Math.min(RUNS, 300));
      expect(failures.slice(0, 30)).toEqual([]);
    },
    (SECONDS + 60) * 1000,
  );
});
