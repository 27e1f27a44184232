// Fulfillments and tracking, including Idempotency-Key behaviour and scope aliases.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { countStatements, ISO_TIMESTAMP, json, startMerchantApp, walk, type TestApp, type TestMerchant } from '../../../test/helpers.ts';
import { addStock, events, fulfil, ledger, makeProduct, placeOrder, WAREHOUSE, type MadeProduct } from '../../../test/fixtures.ts';

let t: TestApp;
let m: TestMerchant;
let key: string;
let p: MadeProduct;

beforeAll(async () => {
  ({ t, m, key } = await startMerchantApp({ locations: 2, scopes: WAREHOUSE }));
  p = await makeProduct(t, m, 'Fulfil Tee', [
    { sku: 'FUL-A', price: 10 },
    { sku: 'FUL-B', price: 20, inventory_policy: 'continue' },
  ]);
  await addStock(t, key, p.variants[0].id, m.locations[0], 100);
  await addStock(t, key, p.variants[0].id, m.locations[1], 100);
});
afterAll(() => t?.close());

const newOrder = (qa = 3, qb = 2, location = m.locations[0]) =>
  placeOrder(m, location, [
    { variant_id: p.variants[0].id, quantity: qa },
    { variant_id: p.variants[1].id, quantity: qb },
  ]);
const level = async (variantId: string, locationId = m.locations[0]) =>
  json(await t.api(key, 'GET', `/inventory?variant_id=${variantId}&location_id=${locationId}`), 200, 'listInventory').data[0];

describe('POST /fulfillments', () => {
  it('fulfils part of an order: 201 with Location, moves stock, updates the order, ledgers and emits', async () => {
    const order = await newOrder();
    const before = await level(p.variants[0].id);
    const res = await t.api(key, 'POST', '/fulfillments', {
      merchant_order_id: order.id,
      items: [{ merchant_order_item_id: order.line_items[0].id, quantity: 2 }],
      carrier_name: 'UPS',
      service_level: 'ground',
    });
    const f = json(res, 201, 'createFulfillment').data;
    expect(res.headers.location).toBe(`/api/integrations/v1/fulfillments/${f.id}`);
    expect(f).toEqual({
      id: expect.any(String),
      merchant_order_id: order.id,
      fulfillment_location_id: m.locations[0],
      status: 'pending',
      carrier_name: 'UPS',
      service_level: 'ground',
      tracking: null,
      items: [{ merchant_order_item_id: order.line_items[0].id, quantity: 2 }],
      created_at: expect.stringMatching(ISO_TIMESTAMP),
      updated_at: expect.stringMatching(ISO_TIMESTAMP),
    });
    expect(json(await t.api(key, 'GET', `/fulfillments/${f.id}`), 200, 'getFulfillment').data).toEqual(f);
    expect(await level(p.variants[0].id)).toMatchObject({ on_hand: before.on_hand - 2, committed: before.committed - 2 });

    const o = json(await t.api(key, 'GET', `/orders/${order.id}`), 200, 'getOrder').data;
    expect(o.status).toBe('open');
    expect(o.fulfillment_status).toBe('partially_fulfilled');
    expect(o.line_items.map((l: { fulfilled_quantity: number; fulfillable_quantity: number }) => [l.fulfilled_quantity, l.fulfillable_quantity])).toEqual([
      [2, 1],
      [0, 2],
    ]);
    expect(o.fulfillment_summary).toEqual({ fulfilled_quantity: 2, total_quantity: 5, fulfillment_ids: [f.id] });
    expect(o.updated_at > order.updated_at).toBe(true);

    const apiKeyId = (await t.database.db.selectFrom('inventory_ledger').select('api_key_id').where('reference_id', '=', f.id).executeTakeFirstOrThrow())
      .api_key_id;
    expect((await ledger(t, p.variants[0].id)).slice(-1)).toEqual([
      { location_id: m.locations[0], on_hand_delta: -2, committed_delta: -2, cause: 'fulfillment', reference_id: f.id, reason: null, api_key_id: apiKeyId },
    ]);
    expect(apiKeyId).toMatch(/^[0-9a-f-]{36}$/);

    const created = (await events(t, m.id, 'fulfillment.created')).filter((e) => (e.payload.object as { id: string }).id === f.id);
    expect(created.map((e) => [e.location_id, e.payload])).toEqual([[m.locations[0], { object: f }]]);
    const updated = (await events(t, m.id, 'order.updated')).filter((e) => (e.payload.object as { id: string }).id === order.id);
    expect(updated.map((e) => e.payload)).toEqual([{ object: o }]);
    const inv = (await events(t, m.id, 'inventory.updated')).slice(-1)[0];
    expect(inv.payload.object).toEqual(await level(p.variants[0].id));
  });

  it('closes the order when everything is fulfilled; a closed order then answers 409 invalid_state', async () => {
    const order = await newOrder(1, 1);
    json(await fulfil(t, key, order, [1, 0]), 201, 'createFulfillment');
    const last = json(await fulfil(t, key, order, [0, 1]), 201, 'createFulfillment').data;
    const o = json(await t.api(key, 'GET', `/orders/${order.id}`), 200, 'getOrder').data;
    expect([o.status, o.fulfillment_status]).toEqual(['closed', 'fulfilled']);
    // Tracking usually comes after the order closed.
    expect(json(await t.api(key, 'POST', `/fulfillments/${last.id}/tracking`, { tracking_number: 'LATE' }), 200, 'attachTracking').data.status).toBe('shipped');
    expect(o.line_items.map((l: { fulfillable_quantity: number }) => l.fulfillable_quantity)).toEqual([0, 0]);
    const res = json(await fulfil(t, key, order, [1, 0]), 409, 'createFulfillment');
    expect(res.code).toBe('invalid_state');
    // The continue-policy variant had no stock: fulfilling it leaves on_hand negative.
    expect(await level(p.variants[1].id)).toMatchObject({ on_hand: -1 });
  });

  it('a cancelled order answers 409 invalid_state', async () => {
    const order = await newOrder(1, 1);
    json(await m.op('POST', `/orders/${order.id}/cancel`, {}), 200, 'cancelOrder');
    expect(json(await fulfil(t, key, order, [1, 0]), 409, 'createFulfillment').code).toBe('invalid_state');
  });

  it('names unknown orders, foreign or hidden orders, foreign items and excess quantities (duplicates count together)', async () => {
    const order = await newOrder(3, 2);
    const other = await newOrder(1, 1);
    const unknown = json(
      await t.api(key, 'POST', '/fulfillments', {
        merchant_order_id: '00000000-0000-4000-8000-000000000000',
        items: [{ merchant_order_item_id: order.line_items[0].id, quantity: 1 }],
      }),
      422,
      'createFulfillment',
    );
    expect(unknown.errors).toEqual([{ path: '/merchant_order_id', message: 'is not an order of this merchant', code: 'unknown_id' }]);

    const otherMerchant = await t.merchant({ locations: 1 });
    const otherKey = await otherMerchant.key(WAREHOUSE);
    expect(json(await fulfil(t, otherKey, order, [1, 0]), 422, 'createFulfillment').errors?.[0].path).toBe('/merchant_order_id');
    const restricted = await m.key(WAREHOUSE, [m.locations[1]]);
    expect(json(await fulfil(t, restricted, order, [1, 0]), 422, 'createFulfillment').errors?.[0].path).toBe('/merchant_order_id');

    /** A fulfillment of `order` with these (line item id, quantity) pairs. */
    const fulfilItems = (items: [string, number][]) =>
      t.api(key, 'POST', '/fulfillments', { merchant_order_id: order.id, items: items.map(([id, quantity]) => ({ merchant_order_item_id: id, quantity })) });
    const res = json(
      await fulfilItems([
        [order.line_items[0].id, 2],
        [other.line_items[0].id, 1],
        [order.line_items[0].id, 2],
        [order.line_items[1].id, 3],
      ]),
      422,
      'createFulfillment',
    );
    expect(res.errors).toEqual([
      { path: '/items/0/quantity', message: 'exceeds the fulfillable quantity (3)', code: 'exceeds_fulfillable' },
      { path: '/items/1/merchant_order_item_id', message: 'is not a line item of this order', code: 'unknown_id' },
      { path: '/items/2/quantity', message: 'exceeds the fulfillable quantity (3)', code: 'exceeds_fulfillable' },
      { path: '/items/3/quantity', message: 'exceeds the fulfillable quantity (2)', code: 'exceeds_fulfillable' },
    ]);
    const schema = json(
      await t.api(key, 'POST', '/fulfillments', {
        merchant_order_id: order.id,
        items: [{ merchant_order_item_id: order.line_items[0].id, quantity: 0 }],
        tracking: 1,
      }),
      422,
      'createFulfillment',
    );
    expect(schema.errors?.map((e: { path: string }) => e.path).sort()).toEqual(['/items/0/quantity', '/tracking']);
    expect(json(await t.api(key, 'POST', '/fulfillments', { merchant_order_id: order.id, items: [] }), 422, 'createFulfillment').errors?.[0].path).toBe(
      '/items',
    );

    // Duplicates within the limit merge into one item.
    const ok = json(
      await fulfilItems([
        [order.line_items[1].id, 1],
        [order.line_items[0].id, 1],
        [order.line_items[1].id, 1],
      ]),
      201,
      'createFulfillment',
    ).data;
    expect(ok.items).toEqual([
      { merchant_order_item_id: order.line_items[1].id, quantity: 2 },
      { merchant_order_item_id: order.line_items[0].id, quantity: 1 },
    ]);
    const o = json(await t.api(key, 'GET', `/orders/${order.id}`), 200, 'getOrder').data;
    expect(o.line_items.map((l: { fulfillable_quantity: number }) => l.fulfillable_quantity)).toEqual([2, 0]);
  });
  it('a line whose variant was removed since still fulfils and cancels (its snapshot stays; no stock moves)', async () => {
    const gone = await makeProduct(t, m, 'Discontinued', [{ sku: 'FUL-GONE', price: 4, inventory_policy: 'continue' }]);
    const order = await placeOrder(m, m.locations[0], [
      { variant_id: gone.variants[0].id, quantity: 2 },
      { variant_id: p.variants[0].id, quantity: 1 },
    ]);
    await t.database.db.deleteFrom('variants').where('id', '=', gone.variants[0].id).execute();
    json(await fulfil(t, key, order, [1, 0]), 201, 'createFulfillment');
    const o = json(await t.api(key, 'GET', `/orders/${order.id}`), 200, 'getOrder').data;
    expect(o.line_items[0]).toMatchObject({
      variant_id: gone.variants[0].id,
      sku: 'FUL-GONE',
      title: 'Discontinued',
      fulfilled_quantity: 1,
      fulfillable_quantity: 1,
    });
    const before = await level(p.variants[0].id);
    expect(json(await m.op('POST', `/orders/${order.id}/cancel`, {}), 200, 'cancelOrder').data.status).toBe('cancelled');
    expect(await level(p.variants[0].id)).toMatchObject({ on_hand: before.on_hand, committed: before.committed - 1 });
    expect(json(await t.api(key, 'GET', `/inventory?variant_id=${gone.variants[0].id}`), 200, 'listInventory').data).toEqual([]);
  });
});

describe('blank text', () => {
  it('a tracking number or carrier of spaces only is refused (it was stored and sent to the customer)', async () => {
    const order = await newOrder(1, 1);
    const f = json(await fulfil(t, key, order, [1, 1]), 201, 'createFulfillment').data;
    const refused = json(await t.api(key, 'POST', `/fulfillments/${f.id}/tracking`, { tracking_number: '   ', carrier_name: ' ' }), 422, 'attachTracking');
    expect(refused.errors).toEqual([
      { path: '/tracking_number', message: 'must not be blank', code: 'invalid_format' },
      { path: '/carrier_name', message: 'must not be blank', code: 'invalid_format' },
    ]);
    expect(json(await t.api(key, 'GET', `/fulfillments/${f.id}`), 200, 'getFulfillment').data.status).toBe('pending');
  });
});

describe('stock bounds', () => {
  it('on_hand stays above -1,000,000,000: a fulfillment past it is 422 naming its items, and writes nothing (int overflow was a 500)', async () => {
    const order = await newOrder(1, 5);
    const b = p.variants[1].id;
    // Where shipping a billion units that were never there leaves it, written directly.
    await sql`update inventory_levels set on_hand = -999999998 where variant_id = ${b} and location_id = ${m.locations[0]}`.execute(t.database.db);
    const before = await level(b);
    const refused = json(await fulfil(t, key, order, [1, 3]), 422, 'createFulfillment');
    expect(refused.errors).toEqual([{ path: '/items/1/quantity', message: 'would leave on_hand at -1000000001, below -1000000000', code: 'out_of_range' }]);
    expect(await level(b)).toEqual(before);
    expect(json(await t.api(key, 'GET', `/orders/${order.id}`), 200, 'getOrder').data.line_items.map((l) => l.fulfilled_quantity)).toEqual([0, 0]);
    json(await fulfil(t, key, order, [1, 2]), 201, 'createFulfillment');
    const committed = before.committed - 2;
    expect(await level(b)).toMatchObject({ on_hand: -1_000_000_000, committed, available: -1_000_000_000 - committed });
    // At int's edge: refused by name too.
    await sql`update inventory_levels set on_hand = -2147483000 where variant_id = ${b} and location_id = ${m.locations[0]}`.execute(t.database.db);
    expect(json(await fulfil(t, key, order, [0, 3]), 422, 'createFulfillment').errors).toMatchObject([{ path: '/items/0/quantity', code: 'out_of_range' }]);
  });
});

describe('POST /fulfillments/:id/tracking', () => {
  it('attaches tracking (shipped), replaces it, and emits fulfillment.updated', async () => {
    const order = await newOrder(2, 0 || 1);
    const f = json(await fulfil(t, key, order, [1, 0]), 201, 'createFulfillment').data;
    const res = await t.api(key, 'POST', `/fulfillments/${f.id}/tracking`, {
      tracking_number: '1Z999',
      tracking_url: 'https://track.example.com/1Z999',
      carrier_name: 'UPS',
      service_level: 'express',
    });
    const shipped = json(res, 200, 'attachTracking').data;
    expect(shipped).toEqual({
      ...f,
      status: 'shipped',
      tracking: { tracking_number: '1Z999', tracking_url: 'https://track.example.com/1Z999', carrier_name: 'UPS', service_level: 'express' },
      updated_at: expect.stringMatching(ISO_TIMESTAMP),
    });
    expect(shipped.updated_at > f.updated_at).toBe(true);
    const replaced = json(await t.api(key, 'POST', `/fulfillments/${f.id}/tracking`, { tracking_number: 'ABC' }), 200, 'attachTracking').data;
    expect(replaced.tracking).toEqual({ tracking_number: 'ABC', tracking_url: null, carrier_name: null, service_level: null });
    expect(replaced.status).toBe('shipped');
    const evs = (await events(t, m.id, 'fulfillment.updated')).filter((e) => (e.payload.object as { id: string }).id === f.id);
    expect(evs.map((e) => e.payload.object)).toEqual([shipped, replaced]);
  });

  it('a cancelled fulfillment is 409; unknown, foreign and hidden ones are 404; bad bodies are 422', async () => {
    const order = await newOrder(2, 1);
    const f = json(await fulfil(t, key, order, [1, 0]), 201, 'createFulfillment').data;
    json(await m.op('POST', `/orders/${order.id}/cancel`, {}), 200, 'cancelOrder');
    expect(json(await t.api(key, 'POST', `/fulfillments/${f.id}/tracking`, { tracking_number: 'X' }), 409, 'attachTracking').code).toBe('invalid_state');

    const live = json(await fulfil(t, key, await newOrder(1, 1), [1, 0]), 201, 'createFulfillment').data;
    expect(
      json(await t.api(key, 'POST', '/fulfillments/00000000-0000-4000-8000-000000000000/tracking', { tracking_number: 'X' }), 404, 'attachTracking').code,
    ).toBe('not_found');
    expect(json(await t.api(key, 'POST', '/fulfillments/nope/tracking', { tracking_number: 'X' }), 404, 'attachTracking').code).toBe('not_found');
    const otherKey = await (await t.merchant({ locations: 1 })).key(WAREHOUSE);
    expect(json(await t.api(otherKey, 'POST', `/fulfillments/${live.id}/tracking`, { tracking_number: 'X' }), 404, 'attachTracking').code).toBe('not_found');
    const restricted = await m.key(WAREHOUSE, [m.locations[1]]);
    expect(json(await t.api(restricted, 'POST', `/fulfillments/${live.id}/tracking`, { tracking_number: 'X' }), 404, 'attachTracking').code).toBe('not_found');
    expect(json(await t.api(restricted, 'GET', `/fulfillments/${live.id}`), 404, 'getFulfillment').code).toBe('not_found');

    const bad = json(await t.api(key, 'POST', `/fulfillments/${live.id}/tracking`, { tracking_url: 'ftp://x.example.com/1' }), 422, 'attachTracking');
    expect(bad.errors?.map((e: { path: string }) => e.path).sort()).toEqual(['/tracking_number', '/tracking_url']);
    expect(
      json(await t.api(key, 'POST', `/fulfillments/${live.id}/tracking`, { tracking_number: 'X', tracking_url: 'not a url' }), 422, 'attachTracking')
        .errors?.[0].path,
    ).toBe('/tracking_url');
    expect(json(await t.api(key, 'GET', `/fulfillments/${live.id}`), 200, 'getFulfillment').data.status).toBe('pending');
  });
});

describe('GET /fulfillments', () => {
  it('lists in (updated_at, id) order with status and updated_after filters, location-restricted, constant queries', async () => {
    const mm = await t.merchant({ locations: 2 });
    const k = await mm.key(WAREHOUSE);
    const q = await makeProduct(t, mm, 'List', [{ sku: 'FUL-LIST', price: 1, inventory_policy: 'continue' }]);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const order = await placeOrder(mm, mm.locations[i % 2], [{ variant_id: q.variants[0].id, quantity: 1 }]);
      ids.push(json(await fulfil(t, k, order, [1]), 201, 'createFulfillment').data.id);
    }
    json(await t.api(k, 'POST', `/fulfillments/${ids[0]}/tracking`, { tracking_number: 'T' }), 200, 'attachTracking');
    ids.push(ids.shift()!);
    expect((await walk(t, k, '/fulfillments', 2)).ids).toEqual(ids);
    expect(json(await t.api(k, 'GET', '/fulfillments?status=shipped'), 200, 'listFulfillments').data.map((f: { id: string }) => f.id)).toEqual([ids[4]]);
    expect(json(await t.api(k, 'GET', '/fulfillments?status=pending'), 200, 'listFulfillments').data.map((f: { id: string }) => f.id)).toEqual(ids.slice(0, 4));
    expect(json(await t.api(k, 'GET', '/fulfillments?status=cancelled'), 200, 'listFulfillments').data).toEqual([]);
    expect(json(await t.api(k, 'GET', '/fulfillments?status=lost'), 422, 'listFulfillments').errors?.[0].path).toBe('/status');
    const all = json(await t.api(k, 'GET', '/fulfillments'), 200, 'listFulfillments').data;
    expect(
      json(await t.api(k, 'GET', `/fulfillments?updated_after=${all[2].updated_at}`), 200, 'listFulfillments').data.map((f: { id: string }) => f.id),
    ).toEqual(all.filter((f: { updated_at: string }) => f.updated_at > all[2].updated_at).map((f: { id: string }) => f.id));
    const restricted = await mm.key(['fulfillments.read'], [mm.locations[0]]);
    expect(json(await t.api(restricted, 'GET', '/fulfillments'), 200, 'listFulfillments').data).toEqual(
      all.filter((f: { fulfillment_location_id: string }) => f.fulfillment_location_id === mm.locations[0]),
    );

    const page = (limit: number) => countStatements(async () => json(await t.api(k, 'GET', `/fulfillments?limit=${limit}`), 200, 'listFulfillments'));
    const few = await page(1);
    expect(await page(5)).toBe(few);
  });
});

describe('scopes', () => {
  it('fulfillments.write creates and tracks; fulfillments.create alone cannot track; reads need fulfillments.read', async () => {
    const order = await newOrder(2, 1);
    const write = await m.key(['fulfillments.write']);
    const f = json(await fulfil(t, write, order, [1, 0]), 201, 'createFulfillment').data;
    json(await t.api(write, 'POST', `/fulfillments/${f.id}/tracking`, { tracking_number: 'W' }), 200, 'attachTracking');
    const createOnly = await m.key(['fulfillments.create']);
    json(await fulfil(t, createOnly, order, [1, 0]), 201, 'createFulfillment');
    const denied = json(await t.api(createOnly, 'POST', `/fulfillments/${f.id}/tracking`, { tracking_number: 'W' }), 403, 'attachTracking');
    expect(denied.code).toBe('insufficient_scope');
    expect(denied.detail).toContain('fulfillments.tracking.write');
    expect(json(await t.api(createOnly, 'GET', '/fulfillments'), 403, 'listFulfillments').code).toBe('insufficient_scope');
    const trackOnly = await m.key(['fulfillments.tracking.write']);
    expect(json(await fulfil(t, trackOnly, order, [0, 1]), 403, 'createFulfillment').code).toBe('insufficient_scope');
  });
});

describe('Idempotency-Key', () => {
  it('replays the stored answer with Idempotent-Replayed, the original request_id and a new X-Request-Id; applies once', async () => {
    const order = await newOrder(3, 1);
    const body = { merchant_order_id: order.id, items: [{ merchant_order_item_id: order.line_items[0].id, quantity: 1 }] };
    const first = await t.api(key, 'POST', '/fulfillments', body, { 'idempotency-key': 'ful-1' });
    const created = json(first, 201, 'createFulfillment');
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    // Same payload with keys in another order is the same payload.
    const again = await t.api(key, 'POST', '/fulfillments', { items: body.items, merchant_order_id: order.id }, { 'idempotency-key': 'ful-1' });
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.headers.location).toBe(first.headers.location);
    expect(json(again, 201, 'createFulfillment')).toEqual(created);
    expect(json(again, 201, 'createFulfillment').request_id).toBe(first.headers['x-request-id']);
    expect(again.headers['x-request-id']).not.toBe(first.headers['x-request-id']);
    const o = json(await t.api(key, 'GET', `/orders/${order.id}`), 200, 'getOrder').data;
    expect(o.fulfillment_summary.fulfillment_ids).toEqual([created.data.id]);
    expect(o.line_items[0].fulfilled_quantity).toBe(1);

    // The draft's quoted form names the same key.
    expect((await t.api(key, 'POST', '/fulfillments', body, { 'idempotency-key': '"ful-1"' })).headers['idempotent-replayed']).toBe('true');
    // Keys are scoped per merchant: another merchant's same key is its own.
    const otherKey = await (await t.merchant({ locations: 1 })).key(WAREHOUSE);
    expect(json(await t.api(otherKey, 'POST', '/fulfillments', body, { 'idempotency-key': 'ful-1' }), 422, 'createFulfillment').errors?.[0].path).toBe(
      '/merchant_order_id',
    );
  });

  it('the same key with another payload is 422 idempotency_key_reused', async () => {
    const order = await newOrder(3, 1);
    const items = [{ merchant_order_item_id: order.line_items[0].id, quantity: 1 }];
    json(await t.api(key, 'POST', '/fulfillments', { merchant_order_id: order.id, items }, { 'idempotency-key': 'ful-2' }), 201, 'createFulfillment');
    const res = json(
      await t.api(key, 'POST', '/fulfillments', { merchant_order_id: order.id, items: [{ ...items[0], quantity: 2 }] }, { 'idempotency-key': 'ful-2' }),
      422,
      'createFulfillment',
    );
    expect(res.code).toBe('idempotency_key_reused');
    expect(json(await t.api(key, 'GET', `/orders/${order.id}`), 200, 'getOrder').data.line_items[0].fulfilled_quantity).toBe(1);
  });

  it('stores and replays 4xx answers (validation and state), even after the state changed', async () => {
    const order = await newOrder(1, 1);
    const tooMany = { merchant_order_id: order.id, items: [{ merchant_order_item_id: order.line_items[0].id, quantity: 2 }] };
    const first = await t.api(key, 'POST', '/fulfillments', tooMany, { 'idempotency-key': 'ful-3' });
    const problem = json(first, 422, 'createFulfillment');
    expect(first.headers['content-type']).toMatch(/^application\/problem\+json/);
    const replay = await t.api(key, 'POST', '/fulfillments', tooMany, { 'idempotency-key': 'ful-3' });
    expect(replay.statusCode).toBe(422);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(json(replay, 422, 'createFulfillment')).toEqual(problem);

    const schemaBad = { merchant_order_id: order.id, items: [] };
    const s1 = json(await t.api(key, 'POST', '/fulfillments', schemaBad, { 'idempotency-key': 'ful-4' }), 422, 'createFulfillment');
    const s2 = await t.api(key, 'POST', '/fulfillments', schemaBad, { 'idempotency-key': 'ful-4' });
    expect(s2.headers['idempotent-replayed']).toBe('true');
    expect(json(s2, 422, 'createFulfillment')).toEqual(s1);

    const f = json(await fulfil(t, key, order, [1, 0]), 201, 'createFulfillment').data;
    json(await m.op('POST', `/orders/${order.id}/cancel`, {}), 200, 'cancelOrder');
    const t1 = json(
      await t.api(key, 'POST', `/fulfillments/${f.id}/tracking`, { tracking_number: 'Z' }, { 'idempotency-key': 'trk-1' }),
      409,
      'attachTracking',
    );
    const t2 = await t.api(key, 'POST', `/fulfillments/${f.id}/tracking`, { tracking_number: 'Z' }, { 'idempotency-key': 'trk-1' });
    expect(t2.statusCode).toBe(409);
    expect(json(t2, 409, 'attachTracking')).toEqual(t1);
  });

  it('a key is scoped to the resource, however its URL is spelled: upper-case id, trailing slash, percent-encoded letters', async () => {
    const order = await newOrder(2, 1);
    const f = json(await fulfil(t, key, order, [1, 0]), 201, 'createFulfillment').data;
    const first = json(
      await t.api(key, 'POST', `/fulfillments/${f.id}/tracking`, { tracking_number: 'S1' }, { 'idempotency-key': 'trk-scope' }),
      200,
      'attachTracking',
    );
    for (const path of [`/fulfillments/${f.id.toUpperCase()}/tracking`, `/fulfillments/${f.id}/tracking/`, `/fulfillments/${f.id}/%74racking`]) {
      const again = await t.api(key, 'POST', path, { tracking_number: 'S1' }, { 'idempotency-key': 'trk-scope' });
      expect([path, again.headers['idempotent-replayed']]).toEqual([path, 'true']);
      expect(json(again, 200, 'attachTracking')).toEqual(first);
    }
    const before = await level(p.variants[0].id);
    const body = { merchant_order_id: order.id, items: [{ merchant_order_item_id: order.line_items[0].id, quantity: 1 }] };
    const created = json(await t.api(key, 'POST', '/fulfillments', body, { 'idempotency-key': 'ful-scope' }), 201, 'createFulfillment');
    const replay = await t.api(key, 'POST', '/fulfillments/', body, { 'idempotency-key': 'ful-scope' });
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(json(replay, 201, 'createFulfillment')).toEqual(created);
    expect((await level(p.variants[0].id)).on_hand).toBe(before.on_hand - 1);
  });

  it("another key's stored answer is not replayed to a key restricted to other locations: 422 idempotency_key_reused", async () => {
    const order = await newOrder(2, 1);
    const body = { merchant_order_id: order.id, items: [{ merchant_order_item_id: order.line_items[0].id, quantity: 1 }] };
    const created = json(await t.api(key, 'POST', '/fulfillments', body, { 'idempotency-key': 'ful-loc' }), 201, 'createFulfillment');
    // The order is at locations[0]: a key for locations[1] was answered the fulfillment it may not see.
    const elsewhere = await m.key(WAREHOUSE, [m.locations[1]]);
    const res = await t.api(elsewhere, 'POST', '/fulfillments', body, { 'idempotency-key': 'ful-loc' });
    expect(json(res, 422, 'createFulfillment').code).toBe('idempotency_key_reused');
    // The detail says why (it said "a different payload", and the payload was the same).
    expect(json(res, 422, 'createFulfillment').detail).toContain('or by an API key restricted to other locations');
    expect(res.headers['idempotent-replayed']).toBeUndefined();
    // A restricted key's own retry still replays, and the unrestricted key's too.
    const here = await m.key(WAREHOUSE, [m.locations[0]]);
    const mine = json(await t.api(here, 'POST', '/fulfillments', body, { 'idempotency-key': 'ful-loc-2' }), 201, 'createFulfillment');
    const again = await t.api(here, 'POST', '/fulfillments', body, { 'idempotency-key': 'ful-loc-2' });
    expect([again.headers['idempotent-replayed'], json(again, 201, 'createFulfillment')]).toEqual(['true', mine]);
    expect(json(await t.api(key, 'POST', '/fulfillments', body, { 'idempotency-key': 'ful-loc' }), 201, 'createFulfillment')).toEqual(created);
  });

  it('tracking attach replays; 403 answers are not stored; malformed keys are 400', async () => {
    const order = await newOrder(2, 1);
    const f = json(await fulfil(t, key, order, [1, 0]), 201, 'createFulfillment').data;
    const a = json(
      await t.api(key, 'POST', `/fulfillments/${f.id}/tracking`, { tracking_number: 'K1' }, { 'idempotency-key': 'trk-2' }),
      200,
      'attachTracking',
    );
    json(await t.api(key, 'POST', `/fulfillments/${f.id}/tracking`, { tracking_number: 'K2' }), 200, 'attachTracking');
    const b = await t.api(key, 'POST', `/fulfillments/${f.id}/tracking`, { tracking_number: 'K1' }, { 'idempotency-key': 'trk-2' });
    expect(b.headers['idempotent-replayed']).toBe('true');
    expect(json(b, 200, 'attachTracking')).toEqual(a);
    expect(json(await t.api(key, 'GET', `/fulfillments/${f.id}`), 200, 'getFulfillment').data.tracking?.tracking_number).toBe('K2');

    const createOnly = await m.key(['fulfillments.create']);
    const body = { merchant_order_id: order.id, items: [{ merchant_order_item_id: order.line_items[0].id, quantity: 1 }] };
    const readOnly = await m.key(['fulfillments.read']);
    expect((await t.api(readOnly, 'POST', '/fulfillments', body, { 'idempotency-key': 'ful-5' })).statusCode).toBe(403);
    json(await t.api(createOnly, 'POST', '/fulfillments', body, { 'idempotency-key': 'ful-5' }), 201, 'createFulfillment');

    for (const bad of ['x'.repeat(256), 'ключ', '""']) {
      const res = json(await t.api(key, 'POST', '/fulfillments', body, { 'idempotency-key': bad }), 400, 'createFulfillment');
      expect(res.code).toBe('malformed_request');
    }
    json(
      await t.api(key, 'POST', '/fulfillments', { ...body, items: [{ ...body.items[0], quantity: 1 }] }, { 'idempotency-key': 'k'.repeat(255) }),
      422,
      'createFulfillment',
    );
  });
});
