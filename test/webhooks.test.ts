// Webhook deliveries to a real receiver: signatures (checked with node:crypto, not our signer),
// location filters, retries, 410, redirects, timeouts and SSRF (rotation, resend and ping: in
// src/modules/webhook-endpoints/webhook-endpoints.test.ts).
import { createHmac } from 'node:crypto';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { retryDue, startWorker, type Worker } from '../src/events/worker.ts';
import { sql } from 'kysely';
import { createTransport } from '../src/events/transport.ts';
import { json, portalJson, problem, shutDown, startMerchantApp, startTestApp, testConfig, type TestApp, type TestMerchant } from './helpers.ts';
import { objectIdOf, startReceiver, type Receiver } from './receiver.ts';
import { verify } from './webhook-signature.ts';
import { receivingEndpoint } from './fixtures.ts';
import * as endpointDisabledReason from '../src/db/migrations/0012_endpoint_disabled_reason.ts';

let t: TestApp;
let m: TestMerchant;
let key: string;
let receiver: Receiver;
let worker: Worker;
const log = pino({ level: 'silent' });

beforeAll(async () => {
  ({ t, m, key } = await startMerchantApp({
    // A timeout with room for a loaded machine (the worker shares its event loop with PGlite).
    config: { webhookRetrySchedule: [0, 0], webhookTimeoutMs: 2000 },
    locations: 2,
    scopes: ['products.write', 'products.read'],
  }));
  worker = startWorker(t.database.db, t.config, log, { autoStart: false });
});
afterEach(async () => receiver?.close());
afterAll(() => shutDown(worker, t));

const endpoint = (events: string[], extra: Record<string, unknown> = {}) => receivingEndpoint(m, events, extra, (r) => (receiver = r));

async function order(locationId: string, variantId: string) {
  return json(await m.op('POST', '/orders', { fulfillment_location_id: locationId, line_items: [{ variant_id: variantId, quantity: 1 }] }), 201, 'createOrder')
    .data;
}

describe('delivery', () => {
  it('signs the exact body with HMAC-SHA256 over timestamp.body and sends the contract headers', async () => {
    const ep = await endpoint(['product.created']);
    expect(ep.signing_secret).toMatch(/^whsec_/);
    const product = json(await t.api(key, 'POST', '/products', { title: 'Signed' }), 201, 'createProduct').data;
    expect(await worker.tick()).toBe(1);
    expect(receiver.received).toHaveLength(1);
    const r = receiver.received[0];
    expect(verify(ep.signing_secret, r)).toBe(true);
    expect(verify('whsec_wrong', r)).toBe(false);
    expect(r.headers['content-type']).toBe('application/json');
    expect(r.headers['x-service-webhook-event']).toBe('product.created');
    expect(r.headers['x-service-webhook-id']).toBe(r.body.id);
    expect(Math.abs(Number(r.headers['x-service-webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(10);
    expect(Object.keys(r.body)).toEqual(['id', 'type', 'created_at', 'merchant_id', 'location_id', 'position', 'data']);
    expect(r.body).toMatchObject({ type: 'product.created', merchant_id: m.id, location_id: null });
    expect(r.body.data.object).toEqual(product);
    // The delivery carries the event's feed position, in the body and a header: the feed shows the same event there.
    expect(r.body.position).toMatch(/^[0-9a-f]{32}$/);
    expect(r.headers['x-service-webhook-position']).toBe(r.body.position);
    expect(json(await t.api(key, 'GET', `/events/${r.body.id}`), 200, 'getEvent').data).toEqual(r.body);
    const deliveries = json(await m.op('GET', `/webhook-endpoints/${ep.id}/deliveries`), 200, 'listWebhookDeliveries');
    expect(deliveries.data).toEqual([
      {
        id: expect.any(String),
        event_id: r.body.id,
        event_type: 'product.created',
        status: 'delivered',
        attempts: 1,
        last_status_code: 200,
        next_attempt_at: null,
        created_at: expect.any(String),
        updated_at: expect.any(String),
      },
    ]);
  });

  it("an endpoint with a location filter gets only its location's orders", async () => {
    const ep = await endpoint(['order.created'], { location_ids: [m.locations[0]] });
    const p = json(
      await t.api(key, 'POST', '/products', { title: 'Filtered', variants: [{ sku: 'FLT', price: 3, inventory_policy: 'continue' }] }),
      201,
      'createProduct',
    ).data;
    const mine = await order(m.locations[0], p.variants[0].id);
    await order(m.locations[1], p.variants[0].id);
    await worker.tick();
    expect(receiver.received.map((r) => [r.body.type, r.body.location_id, objectIdOf(r.body)])).toEqual([['order.created', m.locations[0], mine.id]]);
    expect(verify(ep.signing_secret, receiver.received[0])).toBe(true);
  });

  it('narrowing what an endpoint takes ends its pending deliveries outside it; a resend of one is 409 (they reached the new URL)', async () => {
    const ep = await endpoint(['order.created', 'product.created']);
    const p = json(
      await t.api(key, 'POST', '/products', { title: 'Narrowed', variants: [{ sku: 'NRW', price: 3, inventory_policy: 'continue' }] }),
      201,
      'createProduct',
    ).data;
    const kept = await order(m.locations[0], p.variants[0].id);
    const elsewhere = await order(m.locations[1], p.variants[0].id);
    const deliveries = async () =>
      Object.fromEntries(
        json(await m.op('GET', `/webhook-endpoints/${ep.id}/deliveries`), 200, 'listWebhookDeliveries').data.map((d) => [d.event_type, d] as const),
      );
    // Nothing posted yet: all three are pending when the endpoint is pointed at location 0 and orders only.
    const patched = json(
      await m.op('PATCH', `/webhook-endpoints/${ep.id}`, { events: ['order.created'], location_ids: [m.locations[0]] }),
      200,
      'updateWebhookEndpoint',
    ).data;
    expect(patched).toMatchObject({ events: ['order.created'], location_ids: [m.locations[0]] });
    const pending = json(await m.op('GET', `/webhook-endpoints/${ep.id}/deliveries`), 200, 'listWebhookDeliveries').data;
    expect(pending.map((d) => [d.event_type, d.status, d.attempts, d.next_attempt_at]).sort()).toEqual([
      ['order.created', 'failed', 0, null],
      ['order.created', 'pending', 0, expect.any(String)],
      ['product.created', 'failed', 0, null],
    ]);
    await worker.tick();
    expect(receiver.received.map((r) => [r.body.type, r.body.location_id, objectIdOf(r.body)])).toEqual([['order.created', m.locations[0], kept.id]]);
    const elsewhereEvent = await t.database.db
      .selectFrom('events')
      .select('id')
      .where('merchant_id', '=', m.id)
      .where('type', '=', 'order.created')
      .where('location_id', '=', m.locations[1])
      .where(sql<boolean>`payload->'object'->>'id' = ${elsewhere.id}`)
      .executeTakeFirstOrThrow();
    const ended = pending.find((d) => d.event_id === elsewhereEvent.id)!;
    expect(ended.status).toBe('failed');
    const refusedLocation = problem(await m.op('POST', `/webhook-endpoints/${ep.id}/deliveries/${ended.id}/resend`), 409);
    expect(refusedLocation).toMatchObject({
      code: 'invalid_state',
      detail: `The event is about location ${m.locations[1]}, which is not in this endpoint's location_ids: add it to resend this delivery.`,
    });
    const product = (await deliveries())['product.created'];
    expect(problem(await m.op('POST', `/webhook-endpoints/${ep.id}/deliveries/${product.id}/resend`), 409)).toMatchObject({
      code: 'invalid_state',
      detail: 'This endpoint no longer takes product.created events: add the type to its events to resend this delivery.',
    });
    // What it still takes is resent; a ping (the endpoint's test, never in its events) always is.
    const delivered = pending.find((d) => d.event_type === 'order.created' && d.id !== ended.id)!;
    json(await m.op('POST', `/webhook-endpoints/${ep.id}/deliveries/${delivered.id}/resend`), 200, 'resendWebhookDelivery');
    const ping = json(await m.op('POST', `/webhook-endpoints/${ep.id}/test`), 200, 'testWebhookEndpoint').data;
    await worker.tick();
    json(await m.op('POST', `/webhook-endpoints/${ep.id}/deliveries/${ping.id}/resend`), 200, 'resendWebhookDelivery');
    await worker.tick();
    expect(receiver.received.map((r) => r.body.type)).toEqual(['order.created', 'order.created', 'ping', 'ping']);
  });

  it('a receiver failing twice then succeeding gets the same event id three times; every attempt is logged', async () => {
    const ep = await endpoint(['product.created']);
    receiver.script.push({ status: 500, body: 'boom' }, { status: 503 });
    await t.api(key, 'POST', '/products', { title: 'Retried' });
    await worker.tick();
    expect(receiver.received).toHaveLength(3);
    expect(new Set(receiver.received.map((r) => r.body.id)).size).toBe(1);
    expect(new Set(receiver.received.map((r) => r.headers['x-service-webhook-id'])).size).toBe(1);
    const [d] = json(await m.op('GET', `/webhook-endpoints/${ep.id}/deliveries`), 200, 'listWebhookDeliveries').data;
    expect(d).toMatchObject({ status: 'delivered', attempts: 3, last_status_code: 200 });
    const attempts = json(await m.op('GET', `/webhook-endpoints/${ep.id}/deliveries/${d.id}/attempts`), 200, 'listWebhookAttempts').data;
    expect(attempts.map((a) => [a.attempt, a.status_code, a.response_excerpt])).toEqual([
      [1, 500, 'boom'],
      [2, 503, 'answer 503'],
      [3, 200, 'answer 200'],
    ]);
    // The same attempts in pages of two (a list envelope, contract §1); the cursor is bound to this delivery.
    const attemptsUrl = `/webhook-endpoints/${ep.id}/deliveries/${d.id}/attempts`;
    const first = json(await m.op('GET', `${attemptsUrl}?limit=2`), 200, 'listWebhookAttempts');
    expect(first.data.map((a) => a.attempt)).toEqual([1, 2]);
    expect(first.meta).toEqual({ limit: 2, next_cursor: expect.any(String) });
    const next = json(await m.op('GET', `${attemptsUrl}?limit=2&cursor=${encodeURIComponent(first.meta.next_cursor!)}`), 200, 'listWebhookAttempts');
    expect(next.data.map((a) => a.attempt)).toEqual([3]);
    expect(next.meta).toEqual({ limit: 2, next_cursor: null });
    const deliveries = `/webhook-endpoints/${ep.id}/deliveries?cursor=${encodeURIComponent(first.meta.next_cursor!)}`;
    expect(problem(await m.op('GET', deliveries), 400).code).toBe('malformed_request');
    // Another delivery of the same endpoint does not take this delivery's cursor.
    await t.api(key, 'POST', '/products', { title: 'Second delivery' });
    await worker.tick();
    const other = json(await m.op('GET', `/webhook-endpoints/${ep.id}/deliveries`), 200, 'listWebhookDeliveries').data.find((x) => x.id !== d.id)!;
    const crossed = `/webhook-endpoints/${ep.id}/deliveries/${other.id}/attempts?cursor=${encodeURIComponent(first.meta.next_cursor!)}`;
    expect(problem(await m.op('GET', crossed), 400).code).toBe('malformed_request');
    expect(json(await m.op('GET', `/webhook-endpoints/${ep.id}/deliveries/${other.id}/attempts`), 200, 'listWebhookAttempts').data).toHaveLength(1);
    // Like every list, the deliveries and the endpoints take updated_after (strict; it was 422 unknown field).
    const since = (x: { updated_at: string }) => `updated_after=${encodeURIComponent(x.updated_at)}`;
    const delivered = json(await m.op('GET', `/webhook-endpoints/${ep.id}/deliveries`), 200, 'listWebhookDeliveries').data;
    expect(delivered.map((x) => x.id)).toEqual([d.id, other.id]);
    expect(
      json(await m.op('GET', `/webhook-endpoints/${ep.id}/deliveries?${since(delivered[0])}`), 200, 'listWebhookDeliveries').data.map((x) => x.id),
    ).toEqual([other.id]);
    expect(json(await m.op('GET', `/webhook-endpoints/${ep.id}/deliveries?${since(delivered[1])}`), 200, 'listWebhookDeliveries').data).toEqual([]);
    const all = json(await m.op('GET', '/webhook-endpoints'), 200, 'listWebhookEndpoints').data;
    const later = json(await m.op('GET', `/webhook-endpoints?${since(all[0])}`), 200, 'listWebhookEndpoints').data;
    expect(later.map((x) => x.id)).toEqual(
      all
        .slice(1)
        .filter((x) => x.updated_at > all[0].updated_at)
        .map((x) => x.id),
    );
    expect(problem(await m.op('GET', `/webhook-endpoints/${ep.id}/deliveries?updated_after=yesterday`), 422).errors).toEqual([
      { path: '/updated_after', message: expect.any(String), code: 'invalid_format' },
    ]);
  });

  it("a receiver's answer holding NUL, a pair cut at the excerpt's end or a character split between chunks is logged, and the delivery settles", async () => {
    const ep = await endpoint(['product.created']);
    const euro = Buffer.from('€'); // three bytes, sent in two chunks
    receiver.script.push(
      { status: 500, body: `${'a'.repeat(1023)}😀 and more` },
      { status: 502, body: [Buffer.concat([Buffer.from('x'), euro.subarray(0, 1)]), Buffer.concat([euro.subarray(1), Buffer.from('y')])] },
      { status: 200, body: 'ok\u0000bye' },
    );
    await t.api(key, 'POST', '/products', { title: 'Odd answers' });
    await worker.tick();
    // Before, jsonb refused the attempt's row: the delivery stayed leased and was posted again after every lease.
    expect(receiver.received).toHaveLength(3);
    const [d] = json(await m.op('GET', `/webhook-endpoints/${ep.id}/deliveries`), 200, 'listWebhookDeliveries').data;
    expect(d).toMatchObject({ status: 'delivered', attempts: 3, last_status_code: 200 });
    const attempts = json(await m.op('GET', `/webhook-endpoints/${ep.id}/deliveries/${d.id}/attempts`), 200, 'listWebhookAttempts').data;
    expect(attempts.map((a) => [a.attempt, a.status_code, a.response_excerpt])).toEqual([
      [1, 500, 'a'.repeat(1023)],
      [2, 502, 'x€y'],
      [3, 200, 'ok\ufffdbye'],
    ]);
  });

  it('a retry due at once is due for the very next claim: its time is cut to the millisecond, never rounded ahead', async () => {
    await endpoint(['product.created']);
    await t.api(key, 'POST', '/products', { title: 'Due now' });
    const { rows } = await sql<{ id: string }>`select id from webhook_deliveries where status = 'pending' order by created_at desc limit 1`.execute(
      t.database.db,
    );
    // Stored through the timestamptz(3) column and compared at once, 200 times: rounding to the
    // nearest millisecond put about half of them ahead of the clock.
    let ahead = 0;
    for (let i = 0; i < 200; i++) {
      const r = await sql<{ due: boolean }>`
        update webhook_deliveries set next_attempt_at = ${retryDue(sql.lit(0))} where id = ${rows[0].id}
        returning next_attempt_at <= clock_timestamp() as due`.execute(t.database.db);
      if (!r.rows[0].due) ahead++;
    }
    expect(ahead).toBe(0);
    await worker.tick();
  });

  it('after the schedule runs out the delivery is failed', async () => {
    const ep = await endpoint(['product.created']);
    receiver.fallback = { status: 500 };
    await t.api(key, 'POST', '/products', { title: 'Doomed' });
    await worker.tick();
    expect(receiver.received).toHaveLength(3); // first attempt + 2 retries
    const [d] = json(await m.op('GET', `/webhook-endpoints/${ep.id}/deliveries`), 200, 'listWebhookDeliveries').data;
    expect(d).toMatchObject({ status: 'failed', attempts: 3, last_status_code: 500, next_attempt_at: null });
  });

  it('410 Gone disables the endpoint and fails the delivery; events while disabled are not delivered', async () => {
    const ep = await endpoint(['product.created']);
    receiver.script.push({ status: 410 });
    await t.api(key, 'POST', '/products', { title: 'Gone' });
    await worker.tick();
    expect(json(await m.op('GET', `/webhook-endpoints/${ep.id}`), 200, 'getWebhookEndpoint').data.status).toBe('disabled');
    await t.api(key, 'POST', '/products', { title: 'While disabled' });
    await worker.tick();
    expect(receiver.received).toHaveLength(1);
    const list = json(await m.op('GET', `/webhook-endpoints/${ep.id}/deliveries`), 200, 'listWebhookDeliveries').data;
    expect(list.map((d) => [d.status, d.last_status_code])).toEqual([['failed', 410]]);
  });

  it('the portal says why an endpoint is disabled: a 410 Gone, or by hand (it showed "disabled" and no reason)', async () => {
    const ep = await endpoint(['product.created']);
    receiver.script.push({ status: 410 });
    await t.api(key, 'POST', '/products', { title: 'Gone for the portal' });
    await worker.tick();
    json(await m.op('POST', '/users', { email: 'gone@acme.test', password: 'correct horse battery' }), 201, 'createPortalUser');
    const login = await t.app.inject({
      method: 'POST',
      url: '/portal/api/login',
      payload: { email: 'gone@acme.test', password: 'correct horse battery' },
      remoteAddress: '10.0.41.1',
    });
    const cookie = String(login.headers['set-cookie']).split(';')[0];
    const portalGet = (url: string) => t.app.inject({ method: 'GET', url: `/portal/api${url}`, headers: { cookie } });
    const shown = async () => portalJson(await portalGet(`/webhook-endpoints/${ep.id}`), 200, 'GET /portal/api/webhook-endpoints/:id').data.disabled;
    const gone = await shown();
    expect(gone).toEqual({ reason: 'gone', at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/) });
    const listed = portalJson(await portalGet('/webhook-endpoints'), 200, 'GET /portal/api/webhook-endpoints').data;
    expect(listed.find((e) => e.id === ep.id)?.disabled).toEqual(gone);
    // Disabling it again keeps the first reason; enabling clears it; disabling by hand says so.
    json(await m.op('PATCH', `/webhook-endpoints/${ep.id}`, { status: 'disabled' }), 200, 'updateWebhookEndpoint');
    expect(await shown()).toEqual(gone);
    json(await m.op('PATCH', `/webhook-endpoints/${ep.id}`, { status: 'enabled' }), 200, 'updateWebhookEndpoint');
    expect(await shown()).toBe(null);
    json(await m.op('PATCH', `/webhook-endpoints/${ep.id}`, { status: 'disabled' }), 200, 'updateWebhookEndpoint');
    expect(await shown()).toEqual({ reason: 'manual', at: expect.any(String) });
    // Enabled again, a later 410 disables it as gone.
    json(await m.op('PATCH', `/webhook-endpoints/${ep.id}`, { status: 'enabled' }), 200, 'updateWebhookEndpoint');
    receiver.script.push({ status: 410 });
    await t.api(key, 'POST', '/products', { title: 'Gone again' });
    await worker.tick();
    expect((await shown())?.reason).toBe('gone');
    // Endpoints disabled before migration 0012 (no reason stored) get the one their history shows.
    const byHand = json(
      await m.op('POST', '/webhook-endpoints', { url: 'https://hooks.example.com/by-hand', events: ['order.created'] }),
      201,
      'createWebhookEndpoint',
    ).data.id;
    json(await m.op('PATCH', `/webhook-endpoints/${byHand}`, { status: 'disabled' }), 200, 'updateWebhookEndpoint');
    await sql`update webhook_endpoints set disabled_reason = null, disabled_at = null where merchant_id = ${m.id}`.execute(t.database.db);
    await sql.raw(endpointDisabledReason.statements[1]).execute(t.database.db);
    expect((await shown())?.reason).toBe('gone');
    const manual = portalJson(await portalGet(`/webhook-endpoints/${byHand}`), 200, 'GET /portal/api/webhook-endpoints/:id').data.disabled;
    expect(manual).toEqual({ reason: 'manual', at: expect.any(String) });
  });

  it('does not follow redirects, and times out slow receivers', async () => {
    const ep = await endpoint(['product.created']);
    receiver.script.push({ status: 302, headers: { location: 'http://127.0.0.1:1/elsewhere' } }, { status: 200, delayMs: 4000 });
    receiver.fallback = { status: 500 };
    await t.api(key, 'POST', '/products', { title: 'Redirected' });
    await worker.tick();
    const [d] = json(await m.op('GET', `/webhook-endpoints/${ep.id}/deliveries`), 200, 'listWebhookDeliveries').data;
    const attempts = json(await m.op('GET', `/webhook-endpoints/${ep.id}/deliveries/${d.id}/attempts`), 200, 'listWebhookAttempts').data;
    expect(attempts[0]).toMatchObject({ status_code: 302, error: null });
    expect(attempts[1]).toMatchObject({ status_code: null, error: 'timeout after 2000 ms' });
  });
});

describe('SSRF protection', () => {
  it('refuses private, loopback and non-https URLs when private URLs are not allowed', async () => {
    const strict = await startTestApp({ webhookAllowPrivateUrls: false }, t.database);
    try {
      for (const url of [
        'https://127.0.0.1/hook',
        'https://10.1.2.3/hook',
        'https://169.254.169.254/latest',
        'https://[::1]/x',
        'http://example.com/hook',
        'https://localhost/x',
      ]) {
        const res = json(await strict.op('POST', `/merchants/${m.id}/webhook-endpoints`, { url, events: ['order.created'] }), 422, 'createWebhookEndpoint');
        expect(res.errors?.[0].path).toBe('/url');
      }
      expect(
        json(
          await strict.op('POST', `/merchants/${m.id}/webhook-endpoints`, { url: 'https://hooks.example.com/x', events: ['order.created'] }),
          201,
          'createWebhookEndpoint',
        ).data.url,
      ).toBe('https://hooks.example.com/x');
    } finally {
      await strict.app.close();
    }
  });

  it('checks the address actually connected to: a name resolving to loopback is refused', async () => {
    receiver = await startReceiver();
    const port = new URL(receiver.url).port;
    const transport = createTransport({ timeoutMs: 2000, allowPrivate: false });
    const viaName = await transport.post(`https://localhost:${port}/hooks`, {}, '{}');
    expect(viaName.error).toBe('refused: localhost resolves to a private address');
    const viaIp = await transport.post(`https://127.0.0.1:${port}/hooks`, {}, '{}');
    expect(viaIp.error).toBe('refused: private address 127.0.0.1');
    expect(receiver.received).toHaveLength(0);
    await transport.close();
    expect(testConfig().webhookAllowPrivateUrls).toBe(true);
  });
});

describe('the copyable verification helper', () => {
  it('accepts our deliveries and refuses tampering, wrong secrets and stale timestamps', async () => {
    const { verifyWebhook } = await import('../examples/verify-webhook.ts');
    const secret = 'whsec_example';
    const ts = Math.floor(Date.now() / 1000);
    const body = '{"id":"1"}';
    const sig = `v1=${createHmac('sha256', secret).update(`${ts}.${body}`).digest('hex')}`;
    expect(verifyWebhook(body, { timestamp: String(ts), signature: sig }, secret)).toBe(true);
    expect(verifyWebhook(body, { timestamp: String(ts), signature: `v1=00 ${sig}` }, secret)).toBe(true);
    expect(verifyWebhook(body + ' ', { timestamp: String(ts), signature: sig }, secret)).toBe(false);
    expect(verifyWebhook(body, { timestamp: String(ts), signature: sig }, 'whsec_other')).toBe(false);
    // A receiver started without its secret refuses to verify (an HMAC with an empty key passed a forgery).
    const forged = `v1=${createHmac('sha256', '').update(`${ts}.${body}`).digest('hex')}`;
    expect(() => verifyWebhook(body, { timestamp: String(ts), signature: forged }, '')).toThrow('the signing secret is empty');
    expect(verifyWebhook(body, { timestamp: String(ts), signature: sig }, secret, 300, ts + 301)).toBe(false);
  });
});
