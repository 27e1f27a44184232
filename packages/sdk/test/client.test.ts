// The SDK (as built to dist/, imported by its package name) against a real server over HTTP:
// methods per operationId, pagination, typed errors, idempotent retries with one key, answers cut
// off or not JSON, headers. Every client fetches through `server.fetch`, which fails on any answer
// that breaks the OpenAPI document.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, NetworkError, createClient, isApiError, type Client, type Order, type ResponseInfo } from 'merchant-integration-sdk';
import { startLiveServer, stockedProduct, type LiveServer } from '../../../test/live-server.ts';
import { WAREHOUSE } from '../../../test/fixtures.ts';
import { cutOff, problem, withBody } from './fake-answers.ts';

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

type Call = { method: string; path: string; key: string | null };

/** A fetch that records every request's method, path and Idempotency-Key. */
function recordingFetch(log: Call[], inner: typeof fetch = server.fetch): typeof fetch {
  return async (input, init) => {
    const url = new URL(String(input));
    const headers = new Headers(init?.headers);
    log.push({ method: init?.method ?? 'GET', path: url.pathname + url.search, key: headers.get('idempotency-key') });
    return inner(input, init);
  };
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

  it('paginate from an `after` position follows next_cursor without `after` (the cursor carries the position), keeping the filters', async () => {
    const order = await placeOrder(locations[0], 1);
    for (let i = 0; i < 3; i++) await placeOrder(locations[1], 1);
    const types: ['order.created'] = ['order.created'];
    const after = (await sdk().listEvents({ types })).data.find((e) => e.type === 'order.created' && e.data.object.id === order.id)?.position;
    if (after === undefined) throw new Error(`no order.created event for ${order.id}`);
    const expected = [];
    for await (const e of sdk().feed({ after, types })) expected.push(e.id);
    expect(expected).toHaveLength(3);
    const calls: Call[] = [];
    const got = [];
    for await (const e of sdk({ fetch: recordingFetch(calls) }).paginate('listEvents', { after, types, limit: 2 })) got.push(e.id);
    expect(got).toEqual(expected);
    const queries = calls.map((c) => new URL(c.path, server.baseUrl).searchParams);
    expect(queries.map((q) => [...q.keys()].sort())).toEqual([
      ['after', 'limit', 'types'],
      ['cursor', 'limit', 'types'],
    ]);
    expect(queries.map((q) => [q.get('limit'), q.get('types')])).toEqual([
      ['2', 'order.created'],
      ['2', 'order.created'],
    ]);
  });

  it('paginate: an order that changes during the walk comes again at the end, changed, and none is skipped', async () => {
    const placed = [];
    for (let i = 0; i < 5; i++) placed.push(await placeOrder(locations[0], 2));
    const since = new Date(Date.parse(placed[0].created_at) - 1).toISOString();
    const seen: [string, number][] = [];
    for await (const o of sdk().paginate('listOrders', { created_after: since, limit: 2 })) {
      seen.push([o.id, o.line_items[0].fulfillable_quantity]);
      // Fulfilling the first order moves it to the end of the updated_at order, past the pages still to come.
      if (seen.length === 1) {
        await sdk().createFulfillment({ body: { merchant_order_id: o.id, items: [{ merchant_order_item_id: o.line_items[0].id, quantity: 1 }] } });
      }
    }
    const ids = placed.map((o) => o.id);
    expect(seen).toEqual([...ids.map((id): [string, number] => [id, 2]), [ids[0], 1]]);
  });

  it('a parameter the operation does not take is refused before any request', async () => {
    const calls: Call[] = [];
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
    const calls: Call[] = [];
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
    const calls: Call[] = [];
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
    const calls: Call[] = [];
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
    const calls: Call[] = [];
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

  it('a catalog create that met a network error is repeated with the same Idempotency-Key (it was sent once, without one)', async () => {
    const calls: Call[] = [];
    let failed = false;
    const flaky: typeof fetch = async (input, init) => {
      if (!failed && init?.method === 'POST') {
        failed = true;
        throw new TypeError('fetch failed');
      }
      return server.fetch(input, init);
    };
    const client = sdk({ fetch: recordingFetch(calls, flaky), sleep: async () => {} });
    const made = await client.createProduct({ body: { title: 'Sent twice, made once' } });
    expect(calls.map((c) => [c.method, c.path])).toEqual([
      ['POST', '/api/integrations/v1/products'],
      ['POST', '/api/integrations/v1/products'],
    ]);
    expect(calls[0].key).toMatch(/^[0-9a-f-]{36}$/);
    expect(calls[1].key).toBe(calls[0].key);
    const titles = [];
    for await (const p of sdk().paginate('listProducts', {})) if (p.title === 'Sent twice, made once') titles.push(p.id);
    expect(titles).toEqual([made.data.id]);
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

describe('answers that cannot be used', () => {
  /** server.fetch, with the first answer to a request `matches` accepts replaced by `breakIt(answer)`. */
  function breaking(matches: (init: RequestInit | undefined) => boolean, breakIt: (res: Response) => Promise<Response>): typeof fetch {
    let broken = false;
    return async (input, init) => {
      const res = await server.fetch(input, init);
      if (broken || !matches(init)) return res;
      broken = true;
      return breakIt(res);
    };
  }
  const isPost = (init: RequestInit | undefined) => init?.method === 'POST';

  it('an answer cut off mid-body is retried with the same key, the fulfillment is created once, and onResponse reports each attempt once', async () => {
    const order = await placeOrder(locations[0], 1);
    const calls: Call[] = [];
    const sleeps: number[] = [];
    const infos: ResponseInfo[] = [];
    const client = sdk({
      fetch: recordingFetch(calls, breaking(isPost, cutOff)),
      sleep: async (ms) => void sleeps.push(ms),
      onResponse: (i) => infos.push(i),
    });
    const created = await client.createFulfillment({
      body: { merchant_order_id: order.id, items: [{ merchant_order_item_id: order.line_items[0].id, quantity: 1 }] },
    });
    expect(calls.map((c) => c.key)).toEqual([calls[0].key, calls[0].key]);
    expect(sleeps).toEqual([500]);
    expect(infos.map((i) => [i.attempt, i.status, i.replayed])).toEqual([
      [1, 201, false],
      [2, 201, true],
    ]);
    const mine = [];
    for await (const f of sdk().paginate('listFulfillments', {})) if (f.merchant_order_id === order.id) mine.push(f.id);
    expect(mine).toEqual([created.data.id]);
  });

  it('a catalog create whose answer is cut off is repeated with its key and answered from the stored result: one product', async () => {
    const calls: Call[] = [];
    const client = sdk({ fetch: recordingFetch(calls, breaking(isPost, cutOff)), sleep: async () => {} });
    const made = await client.createProduct({ body: { title: 'Cut-off tote' } });
    expect(calls).toHaveLength(2);
    expect(calls[1].key).toBe(calls[0].key);
    const titles = [];
    for await (const p of sdk().paginate('listProducts', {})) if (p.title === 'Cut-off tote') titles.push(p.id);
    expect(titles).toEqual([made.data.id]);
  });

  it('a 2xx whose body is not JSON is retried for reads, so paginate and feed stay complete; after the last attempt it is a NetworkError', async () => {
    const expectedOrders = [];
    for await (const o of sdk().paginate('listOrders', { limit: 2 })) expectedOrders.push(o.id);
    const expectedEvents = [];
    for await (const e of sdk().feed({ limit: 2 })) expectedEvents.push(e.id);
    expect(expectedOrders.length).toBeGreaterThan(6);
    expect(expectedEvents.length).toBeGreaterThan(6);

    // The first answers to pages 2, 3 and 4 (requests 2, 4 and 6): a truncated JSON text, an HTML page, nothing.
    const broken = (): typeof fetch => {
      const bodies = new Map([
        [2, '{"oops":'],
        [4, '<html><body>Bad gateway</body></html>'],
        [6, ''],
      ]);
      let n = 0;
      return async (input, init) => {
        const res = await server.fetch(input, init);
        const text = bodies.get(++n);
        return text === undefined ? res : withBody(res, text);
      };
    };
    const orderSleeps: number[] = [];
    const orders = [];
    for await (const o of sdk({ fetch: broken(), sleep: async (ms) => void orderSleeps.push(ms) }).paginate('listOrders', { limit: 2 })) orders.push(o.id);
    expect(orders).toEqual(expectedOrders);
    expect(orderSleeps).toEqual([500, 500, 500]);
    const eventSleeps: number[] = [];
    const events = [];
    for await (const e of sdk({ fetch: broken(), sleep: async (ms) => void eventSleeps.push(ms) }).feed({ limit: 2 })) events.push(e.id);
    expect(events).toEqual(expectedEvents);
    expect(eventSleeps).toEqual([500, 500, 500]);

    const empty = sdk({ fetch: async (input, init) => withBody(await server.fetch(input, init), ''), sleep: async () => {}, retry: { maxAttempts: 2 } });
    const err = await empty.getOrder({ id: expectedOrders[0] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect(err).toHaveProperty('message', 'getOrder: the answer (200) was not JSON after 2 attempts: Unexpected end of JSON input');
  });

  it('a keyed write answered 2xx with a body that is not JSON, every time, is a NetworkError giving the status after the last attempt', async () => {
    const calls: Call[] = [];
    const html: typeof fetch = async (input, init) => {
      const res = await server.fetch(input, init);
      return init?.method === 'POST' ? withBody(res, '<html>Created</html>') : res;
    };
    const client = sdk({ fetch: recordingFetch(calls, html), sleep: async () => {}, retry: { maxAttempts: 2 } });
    const err = await client.createProduct({ body: { title: 'HTML tote' } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect(err).toHaveProperty(
      'message',
      expect.stringMatching(/^createProduct: the answer \(201\) was not JSON after 2 attempts: .*; the write may have been applied$/),
    );
    expect(calls).toHaveLength(2);
    expect(calls[1].key).toBe(calls[0].key);
  });

  it('a 204 answer carries no body: the method returns undefined', async () => {
    const client = sdk({ fetch: async () => new Response(null, { status: 204 }) });
    expect(await client.getOrder({ id: '00000000-0000-4000-8000-000000000003' })).toBeUndefined();
  });
});

describe('headers', () => {
  it("an Idempotency-Key given in headers, in any case, is the call's key: sent once, reused across calls, the write applied once", async () => {
    const order = await placeOrder(locations[0], 1);
    const calls: Call[] = [];
    const infos: ResponseInfo[] = [];
    const client = sdk({ fetch: recordingFetch(calls), onResponse: (i) => infos.push(i) });
    const input = { body: { merchant_order_id: order.id, items: [{ merchant_order_item_id: order.line_items[0].id, quantity: 1 }] } };
    const key = `fulfil-${order.id}`;
    const first = await client.createFulfillment(input, { headers: { 'Idempotency-Key': key } });
    const again = await client.createFulfillment(input, { headers: { 'IDEMPOTENCY-KEY': key }, idempotencyKey: key });
    expect(again.data.id).toBe(first.data.id);
    expect(infos.map((i) => [i.idempotencyKey, i.replayed])).toEqual([
      [key, false],
      [key, true],
    ]);
    // A client-level one too: the tracking call sends it, alone.
    const tracking = { id: first.data.id, body: { tracking_number: `WH-${order.order_number}` } };
    await sdk({ fetch: recordingFetch(calls), headers: { 'Idempotency-key': `track-${order.id}` } }).attachTracking(tracking);
    expect(calls.map((c) => c.key)).toEqual([key, key, `track-${order.id}`]);
  });

  it('an Idempotency-Key in headers and a different idempotencyKey is a TypeError before any request', async () => {
    const calls: Call[] = [];
    const err = await sdk({ fetch: recordingFetch(calls), headers: { 'Idempotency-Key': 'from-client' } })
      .attachTracking({ id: '00000000-0000-4000-8000-000000000004', body: { tracking_number: '1Z1' } }, { idempotencyKey: 'from-call' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TypeError);
    expect(err).toHaveProperty('message', 'attachTracking was given two Idempotency-Keys: "from-client" in headers and "from-call" as idempotencyKey');
    expect(calls).toEqual([]);
  });

  it("header names are merged whatever their case: the call's win over the client's, the SDK's over both, but an Authorization of yours replaces the SDK's, never joined to it", async () => {
    const seen: Headers[] = [];
    const client = createClient({
      baseUrl: server.baseUrl,
      apiKey: 'not-a-key',
      headers: { 'X-Connector': 'client', Accept: 'text/html' },
      fetch: async (input, init) => {
        seen.push(new Headers(init?.headers));
        return server.fetch(input, init);
      },
    });
    const locs = await client.listLocations({}, { headers: { 'x-connector': 'call', Authorization: `Bearer ${adminKey}` } });
    expect(locs.data).toHaveLength(2);
    expect([seen[0].get('authorization'), seen[0].get('x-connector'), seen[0].get('accept')]).toEqual([`Bearer ${adminKey}`, 'call', 'application/json']);
  });
});
