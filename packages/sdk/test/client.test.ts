// The SDK (as built to dist/, imported by its package name) against a real server over HTTP:
// methods per operationId, pagination, typed errors, idempotent retries with one key. Every client
// fetches through `server.fetch`, which fails on any answer that breaks the OpenAPI document.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, NetworkError, createClient, isApiError, type Client, type Order, type ResponseInfo } from 'merchant-integration-sdk';
import { startLiveServer, stockedProduct, type LiveServer } from '../../../test/live-server.ts';
import { WAREHOUSE } from '../../../test/fixtures.ts';

let server: LiveServer;
let merchantId: string;
let locations: string[];
let adminKey: string;
let variantIds: string[];

function sdk(extra: Partial<Parameters<typeof createClient>[0]> = {}): Client {
  return createClient({ baseUrl: server.baseUrl, apiKey: adminKey, fetch: server.fetch, ...extra });
}

async function placeOrder(locationId: string, quantity: number): Promise<Order> {
  return server.operator<Order>(
    'POST',
    `/merchants/${merchantId}/orders`,
    { fulfillment_location_id: locationId, line_items: [{ variant_id: variantIds[0], quantity }] },
    201,
  );
}

/** A fetch that records every request's method, path and Idempotency-Key. */
function recordingFetch(log: { method: string; path: string; key: string | null }[], inner: typeof fetch = server.fetch): typeof fetch {
  return async (input, init) => {
    const url = new URL(String(input));
    const headers = new Headers(init?.headers);
    log.push({ method: init?.method ?? 'GET', path: url.pathname + url.search, key: headers.get('idempotency-key') });
    return inner(input, init);
  };
}

function problem(status: number, code: string, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ type: 'about:blank', title: code, status, detail: code, code, request_id: '00000000-0000-4000-8000-000000000000' }), {
    status,
    headers: { 'content-type': 'application/problem+json', ...headers },
  });
}

beforeAll(async () => {
  server = await startLiveServer();
  const merchant = await server.merchant('SDK merchant', ['North', 'South']);
  ({ id: merchantId, locations } = merchant);
  adminKey = await merchant.key('sdk', [...WAREHOUSE, 'products.write']);
  variantIds = await stockedProduct(
    sdk(),
    'Canvas tote',
    [
      { sku: 'TOTE-RED', price: 12.5, option1: 'Red' },
      { sku: 'TOTE-BLUE', price: 12.5, option1: 'Blue' },
    ],
    locations.map((l) => [l, [100, 0]]),
  );
});
afterAll(async () => server?.close());

describe('methods and pagination', () => {
  it('one method per operationId returns the typed envelope', async () => {
    const order = await placeOrder(locations[0], 2);
    const got = await sdk().getOrder({ id: order.id });
    expect(got.data.id).toBe(order.id);
    expect(got.data.order_number).toBe(order.order_number);
    expect(got.data.line_items.map((l) => [l.sku, l.quantity, l.fulfillable_quantity])).toEqual([['TOTE-RED', 2, 2]]);
    expect(got.request_id).toMatch(/^[0-9a-f-]{36}$/);
    const locs = await sdk().listLocations();
    expect(locs.data.map((l) => l.name).sort()).toEqual(['North', 'South']);
  });

  it('paginate follows meta.next_cursor through every page, in list order', async () => {
    for (let i = 0; i < 4; i++) await placeOrder(locations[1], 1);
    const all = [];
    for await (const o of sdk().paginate('listOrders', {})) all.push(o.id);
    const pagesSeen: ResponseInfo[] = [];
    const paged = [];
    for await (const o of sdk({ onResponse: (i) => pagesSeen.push(i) }).paginate('listOrders', { limit: 2 })) paged.push(o.id);
    expect(all).toHaveLength(5);
    expect(paged).toEqual(all);
    expect(pagesSeen.map((p) => p.status)).toEqual([200, 200, 200]);
    const filtered = [];
    for await (const o of sdk().paginate('listOrders', { limit: 1, status: 'open' })) filtered.push(o.fulfillment_location_id);
    expect(filtered.filter((l) => l === locations[1])).toHaveLength(4);
  });

  it('pages yields each envelope with its meta', async () => {
    const limits = [];
    for await (const page of sdk().pages('listInventory', { limit: 1 })) limits.push([page.data.length, page.meta.limit, page.meta.next_cursor === null]);
    expect(limits).toEqual([
      [1, 1, false],
      [1, 1, true],
    ]);
  });

  it('a parameter the operation does not take is refused before any request', async () => {
    const calls: { method: string; path: string; key: string | null }[] = [];
    // @ts-expect-error: listOrders takes no `state`
    await expect(sdk({ fetch: recordingFetch(calls) }).listOrders({ state: 'open' })).rejects.toThrow('listOrders takes no parameter "state"');
    expect(calls).toEqual([]);
  });
});

describe('typed errors', () => {
  it('ApiError carries status, code, errors[] and the request_id of the answer', async () => {
    const order = await placeOrder(locations[0], 1);
    const infos: ResponseInfo[] = [];
    const err = await sdk({ onResponse: (i) => infos.push(i) })
      .createFulfillment({ body: { merchant_order_id: order.id, items: [{ merchant_order_item_id: order.line_items[0].id, quantity: 3 }] } })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    if (!isApiError(err)) throw err;
    expect([err.status, err.code, err.attempts]).toEqual([422, 'validation_failed', 1]);
    expect(err.errors.map((e) => e.path)).toEqual(['/items/0/quantity']);
    expect(err.request_id).toBe(infos[0].requestId);
  });

  it('an unknown id is a 404 not_found, not retried', async () => {
    const calls: { method: string; path: string; key: string | null }[] = [];
    const err = await sdk({ fetch: recordingFetch(calls) })
      .getFulfillment({ id: '00000000-0000-4000-8000-000000000001' })
      .catch((e: unknown) => e);
    expect(isApiError(err, 'not_found')).toBe(true);
    expect(calls).toHaveLength(1);
  });
});

describe('idempotent writes', () => {
  it('a lost answer is retried with the same key and the fulfillment is created once', async () => {
    const order = await placeOrder(locations[0], 2);
    const calls: { method: string; path: string; key: string | null }[] = [];
    let dropped = false;
    // The first POST reaches the server and is applied, then its answer is lost.
    const lossy: typeof fetch = async (input, init) => {
      const res = await server.fetch(input, init);
      if (init?.method === 'POST' && !dropped) {
        dropped = true;
        await res.text();
        throw new TypeError('fetch failed: socket hang up');
      }
      return res;
    };
    const sleeps: number[] = [];
    const infos: ResponseInfo[] = [];
    const client = sdk({ fetch: recordingFetch(calls, lossy), sleep: async (ms) => void sleeps.push(ms), onResponse: (i) => infos.push(i) });
    const created = await client.createFulfillment({
      body: { merchant_order_id: order.id, items: [{ merchant_order_item_id: order.line_items[0].id, quantity: 2 }] },
    });
    expect(created.data.items).toEqual([{ merchant_order_item_id: order.line_items[0].id, quantity: 2 }]);
    expect(calls).toHaveLength(2);
    expect(calls[0].key).toMatch(/^[0-9a-f-]{36}$/);
    expect(calls[1].key).toBe(calls[0].key);
    expect(sleeps).toEqual([500]);
    expect(infos.map((i) => [i.status, i.replayed])).toEqual([
      [null, false],
      [201, true],
    ]);
    const mine = [];
    for await (const f of client.paginate('listFulfillments', {})) if (f.merchant_order_id === order.id) mine.push(f.id);
    expect(mine).toEqual([created.data.id]);
    expect((await client.getOrder({ id: order.id })).data.status).toBe('closed');
  });

  it('409 idempotency_in_progress, 503 and 429 are retried after Retry-After (seconds or a date) with one key', async () => {
    const now = Date.parse('2026-11-22T10:00:00.000Z');
    const canned = [
      problem(503, 'service_unavailable', { 'retry-after': '2' }),
      problem(409, 'idempotency_in_progress', { 'retry-after': '1' }),
      problem(429, 'rate_limited', { 'retry-after': new Date(now + 3_000).toUTCString() }),
    ];
    const calls: { method: string; path: string; key: string | null }[] = [];
    const scripted: typeof fetch = async (input, init) => canned.shift() ?? server.fetch(input, init);
    const sleeps: number[] = [];
    const client = sdk({ fetch: recordingFetch(calls, scripted), sleep: async (ms) => void sleeps.push(ms), now: () => now });
    const rows = await client.adjustInventory(
      { body: { adjustments: [{ sku: 'TOTE-BLUE', fulfillment_location_id: locations[1], adjustment: 7, reason: 'cycle count' }] } },
      { idempotencyKey: 'count-2026-11-22-blue' },
    );
    expect(sleeps).toEqual([2_000, 1_000, 3_000]);
    expect(calls.map((c) => c.key)).toEqual(['count-2026-11-22-blue', 'count-2026-11-22-blue', 'count-2026-11-22-blue', 'count-2026-11-22-blue']);
    expect(rows.data.map((r) => [r.sku, r.fulfillment_location_id, r.on_hand, r.committed, r.available])).toEqual([['TOTE-BLUE', locations[1], 7, 0, 7]]);
    // The same key again replays; on_hand stays 7.
    const again = await sdk().adjustInventory(
      { body: { adjustments: [{ sku: 'TOTE-BLUE', fulfillment_location_id: locations[1], adjustment: 7, reason: 'cycle count' }] } },
      { idempotencyKey: 'count-2026-11-22-blue' },
    );
    expect(again).toEqual(rows);
    const inv = await sdk().listInventory({ sku: 'TOTE-BLUE' });
    expect(inv.data.map((r) => r.on_hand)).toEqual([7]);
  });

  it('attempts are bounded: the last answer is thrown after maxAttempts, with exponential backoff', async () => {
    const sleeps: number[] = [];
    const calls: { method: string; path: string; key: string | null }[] = [];
    const client = sdk({
      fetch: recordingFetch(calls, async () => problem(502, 'bad_gateway')),
      sleep: async (ms) => void sleeps.push(ms),
      retry: { maxAttempts: 4, baseDelayMs: 100 },
    });
    const err = await client.attachTracking({ id: '00000000-0000-4000-8000-000000000002', body: { tracking_number: '1Z999' } }).catch((e: unknown) => e);
    expect(isApiError(err)).toBe(true);
    if (!isApiError(err)) throw err;
    expect([err.status, err.attempts]).toEqual([502, 4]);
    expect(sleeps).toEqual([100, 200, 400]);
    expect(new Set(calls.map((c) => c.key)).size).toBe(1);
  });

  it('a write without Idempotency-Key is not repeated after a network error', async () => {
    const calls: { method: string; path: string; key: string | null }[] = [];
    const client = sdk({ fetch: recordingFetch(calls, async () => Promise.reject(new TypeError('fetch failed'))), sleep: async () => {} });
    const err = await client.createProduct({ body: { title: 'Never sent twice' } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect(calls).toEqual([{ method: 'POST', path: '/api/integrations/v1/products', key: null }]);
  });

  it('a real 429 with a Retry-After beyond maxDelayMs is thrown at once as rate_limited', async () => {
    const limited = await startLiveServer({ rateLimitPerMinute: 2 });
    try {
      const m = await limited.operator<{ id: string }>('POST', '/merchants', { name: 'Limited' }, 201);
      const key = (await limited.operator<{ secret: string }>('POST', `/merchants/${m.id}/api-keys`, { label: 'l', scopes: ['orders.read'] }, 201)).secret;
      const sleeps: number[] = [];
      const client = createClient({
        baseUrl: limited.baseUrl,
        apiKey: key,
        fetch: limited.fetch,
        sleep: async (ms) => void sleeps.push(ms),
        retry: { maxDelayMs: 500 },
      });
      await client.listOrders();
      await client.listOrders();
      const err = await client.listOrders().catch((e: unknown) => e);
      expect(isApiError(err, 'rate_limited')).toBe(true);
      if (!isApiError(err)) throw err;
      expect([err.status, err.attempts]).toEqual([429, 1]);
      expect(sleeps).toEqual([]);
    } finally {
      await limited.close();
    }
  });
});
