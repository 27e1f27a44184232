// Operating it: a full flow (operator onboarding, keys, a webhook endpoint, portal sign-in, API
// calls, deliveries) with the logs captured at debug level and /metrics scraped along the way.
import net from 'node:net';
import { Writable } from 'node:stream';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorker, type Worker } from '../src/events/worker.ts';
import { startRetention, type RetentionJob } from '../src/maintenance/retention.ts';
import { SCOPES } from '../src/http/scopes.ts';
import { createLogger } from '../src/logger.ts';
import { addStock, makeProduct, placeOrder } from './fixtures.ts';
import { json, onPostgres, OPERATOR_TOKEN, portalJson, problem, shutDown, startTestApp, type TestApp } from './helpers.ts';
import { startReceiver, type Receiver } from './receiver.ts';

const METRICS_TOKEN = 'metrics-token-for-tests';
const PASSWORD = 'correct horse battery staple';
const WRONG_PASSWORD = 'wrong horse battery staple';

const lines: string[] = [];
const sink = new Writable({
  write(chunk, _enc, done) {
    lines.push(...chunk.toString().split('\n').filter(Boolean));
    done();
  },
});
const entries = () => lines.map((l) => JSON.parse(l));

let t: TestApp;
let worker: Worker;
let retention: RetentionJob;
let receiver: Receiver;

/** Samples of the exposition text as { 'name{labels}': value }. */
async function scrape(): Promise<Record<string, number>> {
  const res = await t.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  expect(res.statusCode).toBe(200);
  expect(res.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
  const samples: Record<string, number> = {};
  for (const line of res.body.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const i = line.lastIndexOf(' ');
    samples[line.slice(0, i)] = Number(line.slice(i + 1));
  }
  return samples;
}

async function pendingInDb(): Promise<number> {
  const r = await t.database.db
    .selectFrom('webhook_deliveries')
    .select(sql<string>`count(*)`.as('n'))
    .where('status', '=', 'pending')
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

beforeAll(async () => {
  const log = createLogger({ level: 'debug', format: 'json' }, sink);
  t = await startTestApp({ metricsToken: METRICS_TOKEN, rateLimitPerMinute: 30, webhookRetrySchedule: [1] }, undefined, log);
  worker = startWorker(t.database.db, t.config, log, { autoStart: false });
  retention = startRetention(t.database.db, t.config, log, { autoStart: false });
  receiver = await startReceiver();
});
afterAll(() => shutDown(worker, retention, receiver, t));

describe('a full flow, logged and measured', () => {
  const secrets: Record<string, string> = { operator_token: OPERATOR_TOKEN, metrics_token: METRICS_TOKEN, password: PASSWORD, wrong_password: WRONG_PASSWORD };
  let merchantId: string;
  let keyId: string;
  let ordersRequestId: string;
  let backlogAfterFlow = 0;

  it('runs: onboarding, keys, endpoint, portal sign-in, API calls; the backlog gauge rises with the outbox', async () => {
    expect((await scrape())['mia_webhook_backlog']).toBe(0);

    const m = await t.merchant({ locations: 1 });
    merchantId = m.id;
    json(await m.op('POST', '/users', { email: 'ops@observed.test', password: PASSWORD }), 201, 'createPortalUser');
    const created = json(await m.op('POST', '/api-keys', { label: 'all', scopes: [...SCOPES] }), 201, 'createApiKey').data;
    secrets.api_key = created.secret;
    keyId = created.id;
    const endpoint = json(
      await m.op('POST', '/webhook-endpoints', { url: receiver.url, events: ['order.created', 'inventory.updated'] }),
      201,
      'createWebhookEndpoint',
    ).data;
    secrets.signing_secret = endpoint.signing_secret;

    // Portal: a failed sign-in, a good one, then a key created and the signing secret revealed.
    expect(
      (await t.app.inject({ method: 'POST', url: '/portal/api/login', payload: { email: 'ops@observed.test', password: WRONG_PASSWORD } })).statusCode,
    ).toBe(401);
    const login = await t.app.inject({ method: 'POST', url: '/portal/api/login', payload: { email: 'ops@observed.test', password: PASSWORD } });
    const cookie = String(login.headers['set-cookie']).split(';')[0];
    secrets.session_token = cookie.split('=')[1];
    secrets.csrf_token = portalJson(login, 200, 'POST /portal/api/login').data.csrf_token;
    const portal = (method: string, url: string, payload?: unknown) =>
      t.app.inject({
        method: method as never,
        url: `/portal/api${url}`,
        headers: { cookie, 'x-csrf-token': secrets.csrf_token },
        ...(payload ? { payload: payload as never } : {}),
      });
    secrets.portal_key = portalJson(
      await portal('POST', '/api-keys', { label: 'from portal', scopes: ['orders.read'] }),
      201,
      'POST /portal/api/api-keys',
    ).data.secret;
    expect(
      portalJson(await portal('GET', `/webhook-endpoints/${endpoint.id}/secret`), 200, 'GET /portal/api/webhook-endpoints/:id/secret').data.signing_secret,
    ).toBe(secrets.signing_secret);

    // Integration API: reads, stock, an order, an idempotent write and its replay.
    const orders = await t.api(secrets.api_key, 'GET', '/orders');
    json(orders, 200, 'listOrders');
    ordersRequestId = String(orders.headers['x-request-id']);
    // Secrets put in a URL by mistake (another key, a signing secret): the access line's path is written without them.
    for (const misplaced of [`/orders/${secrets.portal_key}`, `/foo/${secrets.signing_secret}`]) {
      expect((await t.api(secrets.api_key, 'GET', misplaced)).statusCode).toBe(404);
    }
    const p = await makeProduct(t, m, 'Observed tee', [{ sku: 'OBS-1', price: 12 }]);
    await addStock(t, secrets.api_key, p.variants[0].id, m.locations[0], 5);
    await placeOrder(m, m.locations[0], [{ variant_id: p.variants[0].id, quantity: 2 }]);
    const adjustment = { adjustments: [{ variant_id: p.variants[0].id, fulfillment_location_id: m.locations[0], adjustment: 1 }] };
    const first = await t.api(secrets.api_key, 'POST', '/inventory/adjustments', adjustment, { 'idempotency-key': 'obs-1' });
    const again = await t.api(secrets.api_key, 'POST', '/inventory/adjustments', adjustment, { 'idempotency-key': 'obs-1' });
    expect([first.statusCode, again.statusCode, again.headers['idempotent-replayed']]).toEqual([200, 200, 'true']);

    // A key over its rate: 30 per minute, the 31st is refused.
    secrets.limited_key = await m.key(['orders.read']);
    const statuses = [];
    for (let i = 0; i < 31; i++) statuses.push((await t.api(secrets.limited_key, 'GET', '/locations')).statusCode);
    expect(statuses.filter((s) => s === 429)).toEqual([429]);

    expect((await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);

    backlogAfterFlow = await pendingInDb();
    expect(backlogAfterFlow).toBeGreaterThanOrEqual(3); // two inventory.updated, one order.created at least
    const s = await scrape();
    expect(s['mia_webhook_backlog']).toBe(backlogAfterFlow);
    expect(s['mia_webhook_due']).toBe(backlogAfterFlow);
    expect(s['mia_webhook_backlog_oldest_age_seconds']).toBeGreaterThan(0);
    expect(s['mia_webhook_backlog_oldest_age_seconds']).toBeLessThan(300);
    expect(s['mia_webhook_due_oldest_wait_seconds']).toBeGreaterThan(0);
  });

  it('the worker drains the outbox: the backlog gauge falls to 0 and deliveries, latency and purges are counted', async () => {
    // An idempotency record past its 48 h: the worker role's retention job removes it.
    await t.database.db
      .updateTable('idempotency_keys')
      .set({ created_at: sql`clock_timestamp() - interval '3 days'` })
      .where('merchant_id', '=', merchantId)
      .execute();
    expect((await retention.runNow()).idempotency_keys).toBe(1);
    await worker.tick();
    await receiver.waitFor(backlogAfterFlow);
    expect(await pendingInDb()).toBe(0);

    const s = await scrape();
    expect(s['mia_webhook_backlog']).toBe(0);
    expect(s['mia_webhook_backlog_oldest_age_seconds']).toBe(0);
    expect(s['mia_webhook_due']).toBe(0);
    expect(s['mia_webhook_due_oldest_wait_seconds']).toBe(0);
    expect(s['mia_webhook_delivery_attempts_total{outcome="delivered"}']).toBe(backlogAfterFlow);
    expect(s['mia_webhook_delivery_latency_seconds_count']).toBe(backlogAfterFlow);
    expect(s['mia_webhook_delivery_latency_seconds_sum']).toBeGreaterThan(0);
    expect(s['mia_retention_purged_rows_total{table="idempotency_keys"}']).toBe(1);
    expect(s['mia_idempotent_replays_total{route="/api/integrations/v1/inventory/adjustments"}']).toBe(1);
    expect(s['mia_rate_limited_total{limiter="api"}']).toBe(1);
    expect(s['mia_http_requests_total{method="GET",route="/api/integrations/v1/orders",status="200"}']).toBe(1);
    expect(s['mia_http_requests_total{method="GET",route="/api/integrations/v1/locations",status="429"}']).toBe(1);
    expect(s['mia_http_requests_total{method="POST",route="/portal/api/login",status="401"}']).toBe(1);
    expect(s['mia_http_request_duration_seconds_count{method="GET",route="/api/integrations/v1/orders",status="200"}']).toBe(1);
    expect(s['mia_http_request_duration_seconds_bucket{le="10",method="GET",route="/api/integrations/v1/orders",status="200"}']).toBe(1);
    if (onPostgres()) {
      expect(s['mia_db_pool_connections{state="max"}']).toBe(20);
      expect(s['mia_db_pool_connections{state="waiting"}']).toBe(0);
      expect(s['mia_db_pool_connections{state="in_use"}']).toBeGreaterThanOrEqual(0);
    }
  });

  it('every request line names merchant, key id, route, status, duration and request id; health checks are at debug', () => {
    const requestLines = entries().filter((e) => e.route !== undefined);
    const orders = requestLines.find((e) => e.request_id === ordersRequestId);
    expect(orders).toEqual({
      level: 30,
      time: expect.any(Number),
      pid: process.pid,
      hostname: expect.any(String),
      request_id: ordersRequestId,
      method: 'GET',
      route: '/api/integrations/v1/orders',
      path: '/api/integrations/v1/orders',
      status: 200,
      duration_ms: expect.any(Number),
      merchant_id: merchantId,
      key_id: keyId,
      msg: expect.stringMatching(/^GET \/api\/integrations\/v1\/orders 200 [\d.]+ ms$/),
    });
    const portalLines = requestLines.filter((e) => e.path.startsWith('/portal/api/') && e.status < 300 && e.path !== '/portal/api/login');
    expect(portalLines.length).toBeGreaterThan(0);
    for (const e of portalLines) expect(e.merchant_id).toBe(merchantId);
    // Operator calls under /merchants/:merchant_id name the merchant from the path.
    const operatorLines = requestLines.filter((e) => e.path.startsWith(`/api/platform/v1/merchants/${merchantId}/`));
    expect(operatorLines.length).toBeGreaterThan(0);
    for (const e of operatorLines) expect(e.merchant_id).toBe(merchantId);
    const health = requestLines.filter((e) => e.path === '/healthz');
    expect(health.map((e) => e.level)).toEqual([20]);
    const scrapes = requestLines.filter((e) => e.path === '/metrics');
    expect(new Set(scrapes.map((e) => e.level))).toEqual(new Set([20]));
  });

  it('no API key secret, signing secret, password, session or CSRF token appears anywhere in the logs', () => {
    const all = lines.join('\n');
    expect(lines.length).toBeGreaterThan(40); // the flow was logged at all
    expect(Object.keys(secrets).sort()).toEqual(
      [
        'api_key',
        'csrf_token',
        'limited_key',
        'metrics_token',
        'operator_token',
        'password',
        'portal_key',
        'session_token',
        'signing_secret',
        'wrong_password',
      ].sort(),
    );
    for (const [name, value] of Object.entries(secrets)) {
      expect(value.length, name).toBeGreaterThan(8);
      expect(all.includes(value), `${name} appears in the logs`).toBe(false);
    }
  });

  it('/metrics needs the token', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: 'Bearer wrong' } });
    expect(res.statusCode).toBe(401);
    expect(problem(res, 401).detail).toBe('Send one header "Authorization: Bearer <METRICS_TOKEN>".');
  });
});

describe('answers given before any route ran', () => {
  it('are logged and counted like any other: a path that is not percent-encoded UTF-8, and a request line Node cannot parse', async () => {
    const before = await scrape();
    const unencoded = await t.app.inject({ method: 'GET', url: '/%zz1' });
    expect(unencoded.statusCode).toBe(400);
    const routerId = String(unencoded.headers['x-request-id']);

    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.server.address() as net.AddressInfo;
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1', () => socket.write('FOO /healthz HTTP/1.1\r\nHost: x\r\n\r\n'));
      let text = '';
      socket.on('data', (c: Buffer) => (text += c.toString()));
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
    });
    expect(raw).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    const parserId = /\r\nX-Request-Id: ([0-9a-f-]{36})\r\n/.exec(raw)![1];

    // Neither had a log line or a metric: their request ids were nowhere to be found.
    const byId = (id: string) => entries().find((e) => e.request_id === id);
    expect(byId(routerId)).toMatchObject({ level: 30, method: 'GET', route: null, path: '/%zz1', status: 400, msg: expect.stringMatching(/^GET \/%zz1 400 /) });
    expect(byId(parserId)).toMatchObject({ level: 30, method: 'unknown', route: null, path: null, status: 400 });
    const after = await scrape();
    const count = (s: Record<string, number>, method: string) => s[`mia_http_requests_total{method="${method}",route="unmatched",status="400"}`] ?? 0;
    expect([count(after, 'GET') - count(before, 'GET'), count(after, 'unknown') - count(before, 'unknown')]).toEqual([1, 1]);
  });
});
