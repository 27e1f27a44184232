// The delivery-attempts route answers only for a delivery of that endpoint of that merchant:
// another merchant's delivery, another endpoint's, or an unknown id is 404 (the operator's
// attempts route, and the portal's equivalent, its delivery detail with the attempts log).
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorker } from '../src/events/worker.ts';
import { json, portalJson, problem, startTestApp, type TestApp, type TestMerchant } from './helpers.ts';
import { startReceiver, type Receiver } from './receiver.ts';

let t: TestApp;
let receiver: Receiver;

async function merchantWithDelivery(email: string) {
  const m = await t.merchant({ locations: 1 });
  const a = json(await m.op('POST', '/webhook-endpoints', { url: receiver.url, events: ['product.created'] }), 201, 'createWebhookEndpoint').data;
  const b = json(await m.op('POST', '/webhook-endpoints', { url: receiver.url, events: ['product.created'] }), 201, 'createWebhookEndpoint').data;
  const delivery = json(await m.op('POST', `/webhook-endpoints/${a.id}/test`), 200, 'testWebhookEndpoint').data;
  json(await m.op('POST', '/users', { email, password: 'correct horse battery' }), 201, 'createPortalUser');
  const res = await t.app.inject({
    method: 'POST',
    url: '/portal/api/login',
    payload: { email, password: 'correct horse battery' },
    remoteAddress: '10.8.0.1',
  });
  const portal = { cookie: String(res.headers['set-cookie']).split(';')[0] };
  return { m, a, b, delivery, portal };
}

let one: Awaited<ReturnType<typeof merchantWithDelivery>>;
let two: Awaited<ReturnType<typeof merchantWithDelivery>>;

beforeAll(async () => {
  t = await startTestApp();
  receiver = await startReceiver();
  one = await merchantWithDelivery('one@acme.test');
  two = await merchantWithDelivery('two@acme.test');
  const worker = startWorker(t.database.db, t.config, pino({ level: 'silent' }), { autoStart: false });
  expect(await worker.tick()).toBe(2);
  await worker.stop();
});
afterAll(async () => {
  await receiver?.close();
  await t?.close();
});

const portalGet = (s: { portal: { cookie: string } }, url: string) =>
  t.app.inject({ method: 'GET', url: `/portal/api${url}`, headers: { cookie: s.portal.cookie } });
const opAttempts = (m: TestMerchant, e: string, d: string) => m.op('GET', `/webhook-endpoints/${e}/deliveries/${d}/attempts`);

describe('delivery attempts', () => {
  it('lists the attempts of a delivery of this endpoint', async () => {
    const attempt = {
      id: expect.any(String),
      attempt: 1,
      status_code: 200,
      duration_ms: expect.any(Number),
      response_excerpt: 'answer 200',
      error: null,
      created_at: expect.any(String),
    };
    expect(json(await opAttempts(one.m, one.a.id, one.delivery.id), 200, 'listWebhookAttempts').data).toEqual([attempt]);
    const detail = portalJson(
      await portalGet(one, `/webhook-endpoints/${one.a.id}/deliveries/${one.delivery.id}`),
      200,
      'GET /portal/api/webhook-endpoints/:id/deliveries/:d',
    ).data;
    expect(detail.attempts_log).toEqual([{ ...attempt, request: expect.any(Object) }]);
  });

  it("another merchant's delivery, another endpoint's delivery, or an unknown id is 404 not_found", async () => {
    const cases = [
      // merchant one asking, through its own endpoint, for merchant two's delivery
      [one.a.id, two.delivery.id],
      // merchant one's delivery, through its other endpoint
      [one.b.id, one.delivery.id],
      // merchant two's delivery through merchant two's endpoint, asked as merchant one
      [two.a.id, two.delivery.id],
      ['00000000-0000-4000-8000-000000000000', one.delivery.id],
      [one.a.id, '00000000-0000-4000-8000-000000000000'],
    ];
    for (const [e, d] of cases) {
      for (const res of [await opAttempts(one.m, e, d), await portalGet(one, `/webhook-endpoints/${e}/deliveries/${d}`)]) {
        expect(res.statusCode, `${e} ${d}: ${res.body}`).toBe(404);
        expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
        expect(problem(res, 404).code).toBe('not_found');
      }
    }
  });
});

describe("the operator's lists of endpoints and attempts are list envelopes (contract §1)", () => {
  it('endpoints page by limit and cursor in (updated_at, id) order; a changed endpoint moves to the end', async () => {
    const first = json(await one.m.op('GET', '/webhook-endpoints?limit=1'), 200, 'listWebhookEndpoints');
    expect(first.data.map((e) => e.id)).toEqual([one.a.id]);
    expect(first.meta).toEqual({ limit: 1, next_cursor: expect.any(String) });
    const cursor = first.meta.next_cursor!;
    const second = json(await one.m.op('GET', `/webhook-endpoints?limit=1&cursor=${encodeURIComponent(cursor)}`), 200, 'listWebhookEndpoints');
    expect(second.data.map((e) => e.id)).toEqual([one.b.id]);
    expect(second.meta).toEqual({ limit: 1, next_cursor: null });
    expect(json(await one.m.op('GET', '/webhook-endpoints'), 200, 'listWebhookEndpoints').meta).toEqual({ limit: 50, next_cursor: null });
    // The cursor is bound to its merchant (a path parameter), and tampering is seen.
    expect(problem(await two.m.op('GET', `/webhook-endpoints?cursor=${encodeURIComponent(cursor)}`), 400).code).toBe('malformed_request');
    expect(problem(await one.m.op('GET', `/webhook-endpoints?cursor=x${encodeURIComponent(cursor)}`), 400).code).toBe('malformed_request');
    expect(problem(await one.m.op('GET', '/webhook-endpoints?limit=251'), 422).errors).toEqual([
      { path: '/limit', code: 'out_of_range', message: expect.any(String) },
    ]);
    expect(problem(await one.m.op('GET', '/webhook-endpoints?status=enabled'), 422).errors).toEqual([
      { path: '/status', code: 'unknown_field', message: expect.any(String) },
    ]);

    json(await one.m.op('PATCH', `/webhook-endpoints/${one.a.id}`, { description: 'moved' }), 200, 'updateWebhookEndpoint');
    const all = json(await one.m.op('GET', '/webhook-endpoints'), 200, 'listWebhookEndpoints').data;
    expect(all.map((e) => [e.id, e.description])).toEqual([
      [one.b.id, null],
      [one.a.id, 'moved'],
    ]);
  });

  it('attempts page by limit and cursor, bound to their delivery', async () => {
    const page = json(await opAttempts(one.m, one.a.id, one.delivery.id), 200, 'listWebhookAttempts');
    expect(page.meta).toEqual({ limit: 50, next_cursor: null });
    const limited = json(await one.m.op('GET', `/webhook-endpoints/${one.a.id}/deliveries/${one.delivery.id}/attempts?limit=1`), 200, 'listWebhookAttempts');
    expect(limited.data.map((a) => a.attempt)).toEqual([1]);
    expect(limited.meta).toEqual({ limit: 1, next_cursor: null });
    const bogus = `/webhook-endpoints/${one.a.id}/deliveries/${one.delivery.id}/attempts?cursor=abc.def`;
    expect(problem(await one.m.op('GET', bogus), 400).code).toBe('malformed_request');
  });
});
