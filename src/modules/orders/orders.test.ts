// Orders: operator intake and cancellation, integration reads.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { countStatements, ISO_TIMESTAMP, json, startMerchantApp, walk, type TestApp, type TestMerchant } from '../../../test/helpers.ts';
import { addStock, events, fulfil, ledger, makeProduct, placeOrder, WAREHOUSE, type MadeProduct } from '../../../test/fixtures.ts';

let t: TestApp;
let m: TestMerchant;
let key: string;
let tee: MadeProduct;
let mug: MadeProduct;

beforeAll(async () => {
  ({ t, m, key } = await startMerchantApp({ locations: 2, scopes: WAREHOUSE }));
  tee = await makeProduct(t, m, 'Classic Tee', [
    { sku: 'ORD-TEE-S', price: 12.5, option1: 'Small', option2: 'Black' },
    { sku: 'ORD-TEE-M', price: 12.5, option1: 'Medium', inventory_policy: 'continue' },
  ]);
  mug = await makeProduct(t, m, 'Mug', [{ sku: 'ORD-MUG', price: 8.25 }]);
  await addStock(t, key, tee.variants[0].id, m.locations[0], 10);
  await addStock(t, key, mug.variants[0].id, m.locations[0], 3);
});
afterAll(() => t?.close());

/** An order intake through the operator API that is refused: the 422 problem, naming the fields. */
const refusedIntake = async (locationId: string, lineItems: { variant_id: string; quantity: number; price?: number }[], extra: Record<string, unknown> = {}) =>
  json(await m.op('POST', '/orders', { fulfillment_location_id: locationId, line_items: lineItems, ...extra }), 422, 'createOrder');
const inventoryOf = async (variantId: string, locationId: string) =>
  json(await t.api(key, 'GET', `/inventory?variant_id=${variantId}&location_id=${locationId}`), 200, 'listInventory').data[0] ?? null;

describe('order intake (operator API)', () => {
  it('snapshots lines, numbers the order, totals exactly, commits stock and emits events', async () => {
    const fresh = await t.merchant({ locations: 1 });
    const freshKey = await fresh.key(WAREHOUSE);
    const p = await makeProduct(t, fresh, 'Hoodie', [
      { sku: 'ORD-HOOD-S', price: 39.99, option1: 'Small', option2: 'Grey' },
      { sku: 'ORD-HOOD-L', price: 41, option1: 'Large', inventory_policy: 'continue' },
    ]);
    await addStock(t, freshKey, p.variants[0].id, fresh.locations[0], 5);
    const res = await fresh.op('POST', '/orders', {
      fulfillment_location_id: fresh.locations[0],
      customer: { name: 'Ada Lovelace', email: 'ada@example.com' },
      shipping_address: { name: 'Ada Lovelace', address1: '1 Analytical St', city: 'London', postal_code: 'N1 1AA', country_code: 'GB' },
      line_items: [
        { variant_id: p.variants[0].id, quantity: 3 },
        { variant_id: p.variants[1].id, quantity: 1, price: 0.1 },
        { variant_id: p.variants[0].id, quantity: 1, price: 0.2 },
      ],
    });
    const order = json(res, 201, 'createOrder').data;
    expect(res.headers.location).toBe(`/api/integrations/v1/orders/${order.id}`);
    /** A line as the order snapshots it at intake: the variant's SKU and titles, nothing fulfilled yet. */
    const snapshot = (variant: 0 | 1, quantity: number, price: number) => ({
      id: expect.any(String),
      product_id: p.id,
      variant_id: p.variants[variant].id,
      sku: ['ORD-HOOD-S', 'ORD-HOOD-L'][variant],
      title: 'Hoodie',
      variant_title: ['Small / Grey', 'Large'][variant],
      quantity,
      fulfilled_quantity: 0,
      fulfillable_quantity: quantity,
      price,
    });
    expect(order).toEqual({
      id: expect.any(String),
      order_number: 1001,
      status: 'open',
      fulfillment_status: 'unfulfilled',
      fulfillment_location_id: fresh.locations[0],
      currency: 'USD',
      total_price: 120.27,
      customer: { name: 'Ada Lovelace', email: 'ada@example.com', phone: null },
      shipping_address: {
        name: 'Ada Lovelace',
        company: null,
        address1: '1 Analytical St',
        address2: null,
        city: 'London',
        province: null,
        postal_code: 'N1 1AA',
        country_code: 'GB',
        phone: null,
      },
      line_items: [snapshot(0, 3, 39.99), snapshot(1, 1, 0.1), snapshot(0, 1, 0.2)],
      fulfillment_summary: { fulfilled_quantity: 0, total_quantity: 5, fulfillment_ids: [] },
      created_at: expect.stringMatching(ISO_TIMESTAMP),
      updated_at: expect.stringMatching(ISO_TIMESTAMP),
    });
    const read = json(await t.api(freshKey, 'GET', `/orders/${order.id}`), 200, 'getOrder').data;
    expect(read).toEqual(order);

    // 4 committed of the deny variant (5 on hand), 1 of the continue variant (0 on hand: -1 available).
    const rows = json(await t.api(freshKey, 'GET', '/inventory'), 200, 'listInventory').data;
    const byVariant = Object.fromEntries(rows.map((r: { variant_id: string }) => [r.variant_id, r]));
    expect(byVariant[p.variants[0].id]).toMatchObject({ on_hand: 5, committed: 4, available: 1 });
    expect(byVariant[p.variants[1].id]).toMatchObject({ on_hand: 0, committed: 1, available: -1, sku: 'ORD-HOOD-L', product_id: p.id });
    const led = await ledger(t, p.variants[0].id);
    expect(led[1]).toEqual({
      location_id: fresh.locations[0],
      on_hand_delta: 0,
      committed_delta: 4,
      cause: 'order',
      reference_id: order.id,
      reason: null,
      api_key_id: null,
    });

    const created = await events(t, fresh.id, 'order.created');
    expect(created).toHaveLength(1);
    expect(created[0].location_id).toBe(fresh.locations[0]);
    expect(created[0].payload).toEqual({ object: order });
    const inv = await events(t, fresh.id, 'inventory.updated');
    // two from the stock adjustment… one per changed row: 1 (adjustment) + 2 (order)
    expect(inv).toHaveLength(3);
    const last = inv.slice(1).map((e) => e.payload.object as { variant_id: string; committed: number });
    expect(last.map((o) => [o.variant_id, o.committed]).sort()).toEqual(
      [
        [p.variants[0].id, 4],
        [p.variants[1].id, 1],
      ].sort(),
    );

    const second = await placeOrder(fresh, fresh.locations[0], [{ variant_id: p.variants[1].id, quantity: 2 }]);
    expect(second.order_number).toBe(1002);
  });

  it('numbers orders per merchant', async () => {
    const a = await placeOrder(m, m.locations[1], [{ variant_id: tee.variants[1].id, quantity: 1 }]);
    const b = await placeOrder(m, m.locations[1], [{ variant_id: tee.variants[1].id, quantity: 1 }]);
    expect(b.order_number).toBe(a.order_number + 1);
  });

  it("names an unknown location, another merchant's variant and a bad price", async () => {
    const other = await t.merchant({ locations: 1 });
    const foreign = await makeProduct(t, other, 'Foreign', [{ sku: 'ORD-FOREIGN', price: 1 }]);
    const body = await refusedIntake(other.locations[0], [
      { variant_id: tee.variants[1].id, quantity: 1, price: 1.005 },
      { variant_id: foreign.variants[0].id, quantity: 1 },
    ]);
    expect(body.code).toBe('validation_failed');
    expect(body.errors).toEqual([
      { path: '/fulfillment_location_id', message: 'is not a location of this merchant', code: 'unknown_id' },
      { path: '/line_items/0/price', message: 'must have at most 2 decimals', code: 'invalid_format' },
      { path: '/line_items/1/variant_id', message: 'is not a variant of this merchant', code: 'unknown_id' },
    ]);
    const schema = await refusedIntake(m.locations[0], [{ variant_id: tee.variants[1].id, quantity: 0 }], { colour: 1 });
    expect(schema.errors?.map((e: { path: string }) => e.path).sort()).toEqual(['/colour', '/line_items/0/quantity']);
    expect((await refusedIntake(m.locations[0], [])).errors?.[0].path).toBe('/line_items');
    // The country as ISO 3166-1 alpha-2 and the email as an address: "Germany" reached the 3PL's labels.
    for (const [address, customer] of [
      [{ country_code: 'Germany' }, { email: 'not-an-email' }],
      [{ country_code: 'de' }, { email: 'a@b@c' }],
    ]) {
      expect((await refusedIntake(m.locations[0], [{ variant_id: tee.variants[1].id, quantity: 1 }], { shipping_address: address, customer })).errors).toEqual([
        { path: '/customer/email', message: 'must be an email address', code: 'invalid_format' },
        { path: '/shipping_address/country_code', message: 'must be an ISO 3166-1 alpha-2 country code in capitals, such as DE or US', code: 'invalid_format' },
      ]);
    }
  });

  it("a line price sent has its variant's bound: the price a line takes by default (it was a hundred times lower)", async () => {
    const dear = await makeProduct(t, m, 'Dear', [{ sku: 'ORD-DEAR', price: 9_999_999_999.99, inventory_policy: 'continue' }]);
    const byDefault = await placeOrder(m, m.locations[0], [{ variant_id: dear.variants[0].id, quantity: 1 }]);
    const sent = await placeOrder(m, m.locations[0], [{ variant_id: dear.variants[0].id, quantity: 1, price: 9_999_999_999.99 }]);
    expect([byDefault.line_items[0].price, sent.line_items[0].price]).toEqual([9_999_999_999.99, 9_999_999_999.99]);
    const over = await refusedIntake(m.locations[0], [{ variant_id: dear.variants[0].id, quantity: 1, price: 10_000_000_000 }]);
    expect(over.errors?.map((e: { path: string; code: string }) => `${e.path}:${e.code}`)).toEqual(['/line_items/0/price:out_of_range']);
  });

  it('refuses a deny-policy variant with too little available, naming the line, and changes nothing', async () => {
    const before = await inventoryOf(mug.variants[0].id, m.locations[0]);
    const ordersBefore = json(await t.api(key, 'GET', '/orders?limit=250'), 200, 'listOrders').data.length;
    const body = await refusedIntake(m.locations[0], [
      { variant_id: tee.variants[1].id, quantity: 50 },
      { variant_id: mug.variants[0].id, quantity: 2 },
      { variant_id: mug.variants[0].id, quantity: 2 },
    ]);
    expect(body.code).toBe('insufficient_inventory');
    expect(body.errors).toEqual([
      { path: '/line_items/1/quantity', message: 'only 3 available at this location', code: 'insufficient_inventory' },
      { path: '/line_items/2/quantity', message: 'only 3 available at this location', code: 'insufficient_inventory' },
    ]);
    expect(await inventoryOf(mug.variants[0].id, m.locations[0])).toEqual(before);
    expect(json(await t.api(key, 'GET', '/orders?limit=250'), 200, 'listOrders').data.length).toBe(ordersBefore);
    // At another location there is no stock at all.
    const elsewhere = await refusedIntake(m.locations[1], [{ variant_id: mug.variants[0].id, quantity: 1 }]);
    expect(elsewhere.errors).toEqual([{ path: '/line_items/0/quantity', message: 'only 0 available at this location', code: 'insufficient_inventory' }]);
    // 150 short lines: the first 100 are listed, and the detail says there are more (as for every field problem).
    const many = await refusedIntake(
      m.locations[1],
      Array.from({ length: 150 }, () => ({ variant_id: mug.variants[0].id, quantity: 1 })),
    );
    expect([many.code, many.errors?.length, many.errors?.[99].path]).toEqual(['insufficient_inventory', 100, '/line_items/99/quantity']);
    expect(many.detail).toMatch(/^More than 100 fields are invalid; the first 100 are listed\. \/line_items\/0\/quantity: only 0 available at this location; /);
    // Exactly what is available is fine; a continue variant may go below zero.
    const ok = await placeOrder(m, m.locations[0], [{ variant_id: mug.variants[0].id, quantity: 3 }]);
    expect(await inventoryOf(mug.variants[0].id, m.locations[0])).toMatchObject({ on_hand: 3, committed: 3, available: 0 });
    // The cancel's body can only be {}: a field is 422 and a body that is not JSON 415, but none at all is {} (as other actions take none).
    const cancelUrl = `/api/platform/v1/merchants/${m.id}/orders/${ok.id}/cancel`;
    const operator = { authorization: `Bearer ${t.config.platformAdminToken}` };
    expect(json(await m.op('POST', `/orders/${ok.id}/cancel`, { reason: 'x' }), 422, 'cancelOrder').errors?.[0]).toMatchObject({
      path: '/reason',
      code: 'unknown_field',
    });
    const text = await t.app.inject({ method: 'POST', url: cancelUrl, headers: { ...operator, 'content-type': 'text/plain' }, payload: 'cancel' });
    expect(json(text, 415, 'cancelOrder').code).toBe('unsupported_media_type');
    expect(json(await t.app.inject({ method: 'POST', url: cancelUrl, headers: operator }), 200, 'cancelOrder').data.status).toBe('cancelled');
    expect(await inventoryOf(mug.variants[0].id, m.locations[0])).toMatchObject({ on_hand: 3, committed: 0, available: 3 });
  });

  it('answers 404 for an unknown merchant', async () => {
    const res = await t.op('POST', '/merchants/00000000-0000-4000-8000-000000000000/orders', {
      fulfillment_location_id: m.locations[0],
      line_items: [{ variant_id: tee.variants[0].id, quantity: 1 }],
    });
    expect(res.statusCode).toBe(404);
  });
});

describe('stock bounds', () => {
  it('committed stays within 1,000,000,000: an order past it is 422 naming its lines, never an integer overflow (86 orders of 250 × 100,000 gave a 500 on every retry)', async () => {
    const [v] = (await makeProduct(t, m, 'Bulk order', [{ sku: 'ORD-BULK', price: 0, inventory_policy: 'continue' }])).variants.map((x) => x.id);
    const at = m.locations[1];
    await placeOrder(m, at, [{ variant_id: v, quantity: 100_000 }]);
    // Where forty orders of 250 lines × 100,000 leave it, written directly (the requests take minutes).
    await sql`update inventory_levels set committed = 999950000 where variant_id = ${v}`.execute(t.database.db);
    const before = await inventoryOf(v, at);
    const message = 'would commit 1000010000 units of this variant at this location, above 1000000000';
    expect(
      (
        await refusedIntake(at, [
          { variant_id: v, quantity: 30_000 },
          { variant_id: v, quantity: 30_000 },
        ])
      ).errors,
    ).toEqual([
      { path: '/line_items/0/quantity', message, code: 'out_of_range' },
      { path: '/line_items/1/quantity', message, code: 'out_of_range' },
    ]);
    expect(await inventoryOf(v, at)).toEqual(before);
    await placeOrder(m, at, [{ variant_id: v, quantity: 50_000 }]);
    expect(await inventoryOf(v, at)).toMatchObject({ on_hand: 0, committed: 1_000_000_000, available: -1_000_000_000 });
    // At int's edge (a row stored before the bound): refused by name as well, not PostgreSQL's "integer out of range".
    await sql`update inventory_levels set committed = 2147480000 where variant_id = ${v}`.execute(t.database.db);
    expect((await refusedIntake(at, [{ variant_id: v, quantity: 100_000 }])).errors).toMatchObject([{ path: '/line_items/0/quantity', code: 'out_of_range' }]);
  });
});

describe('order cancellation', () => {
  it('releases what is still committed, cancels pending fulfillments, returns their stock and keeps shipped ones', async () => {
    const p = await makeProduct(t, m, 'Cancel Tee', [
      { sku: 'ORD-CAN-A', price: 5 },
      { sku: 'ORD-CAN-B', price: 6 },
    ]);
    const [a, b] = p.variants.map((v) => v.id);
    await addStock(t, key, a, m.locations[0], 10);
    await addStock(t, key, b, m.locations[0], 10);
    const order = await placeOrder(m, m.locations[0], [
      { variant_id: a, quantity: 4 },
      { variant_id: b, quantity: 3 },
    ]);
    const shipped = json(await fulfil(t, key, order, [1, 0]), 201, 'createFulfillment').data;
    json(await t.api(key, 'POST', `/fulfillments/${shipped.id}/tracking`, { tracking_number: '1Z1' }), 200, 'attachTracking');
    const pending = json(await fulfil(t, key, order, [2, 1]), 201, 'createFulfillment').data;
    expect(await inventoryOf(a, m.locations[0])).toMatchObject({ on_hand: 7, committed: 1 });
    expect(await inventoryOf(b, m.locations[0])).toMatchObject({ on_hand: 9, committed: 2 });

    const res = await m.op('POST', `/orders/${order.id}/cancel`, {});
    const cancelled = json(res, 200, 'cancelOrder').data;
    expect(cancelled).toMatchObject({ status: 'cancelled', fulfillment_status: 'partially_fulfilled' });
    expect(
      cancelled.line_items.map((l: { fulfilled_quantity: number; fulfillable_quantity: number }) => [l.fulfilled_quantity, l.fulfillable_quantity]),
    ).toEqual([
      [1, 0],
      [0, 0],
    ]);
    expect(cancelled.fulfillment_summary).toEqual({ fulfilled_quantity: 1, total_quantity: 7, fulfillment_ids: [shipped.id, pending.id] });
    // a: 10 - 1 shipped = 9 on hand, nothing committed; b: back to 10.
    expect(await inventoryOf(a, m.locations[0])).toMatchObject({ on_hand: 9, committed: 0, available: 9 });
    expect(await inventoryOf(b, m.locations[0])).toMatchObject({ on_hand: 10, committed: 0, available: 10 });
    expect(json(await t.api(key, 'GET', `/fulfillments/${pending.id}`), 200, 'getFulfillment').data.status).toBe('cancelled');
    expect(json(await t.api(key, 'GET', `/fulfillments/${shipped.id}`), 200, 'getFulfillment').data.status).toBe('shipped');

    expect((await ledger(t, a)).slice(-1)).toEqual([
      { location_id: m.locations[0], on_hand_delta: 2, committed_delta: -1, cause: 'cancellation', reference_id: order.id, reason: null, api_key_id: null },
    ]);
    const orderEvents = (await events(t, m.id, 'order.cancelled')).filter((e) => (e.payload.object as { id: string }).id === order.id);
    expect(orderEvents.map((e) => e.payload)).toEqual([{ object: cancelled }]);
    const fEvents = (await events(t, m.id, 'fulfillment.updated')).filter((e) => (e.payload.object as { id: string }).id === pending.id);
    expect(fEvents).toHaveLength(1);
    expect(fEvents[0].payload.object).toEqual(json(await t.api(key, 'GET', `/fulfillments/${pending.id}`), 200, 'getFulfillment').data);

    const again = json(await m.op('POST', `/orders/${order.id}/cancel`, {}), 409, 'cancelOrder');
    expect(again.code).toBe('invalid_state');
  });

  it('refuses to cancel a closed order and answers 404 for an unknown one', async () => {
    const order = await placeOrder(m, m.locations[0], [{ variant_id: tee.variants[0].id, quantity: 1 }]);
    json(await fulfil(t, key, order, [1]), 201, 'createFulfillment');
    expect(json(await m.op('POST', `/orders/${order.id}/cancel`, {}), 409, 'cancelOrder').code).toBe('invalid_state');
    expect(json(await m.op('POST', '/orders/00000000-0000-4000-8000-000000000000/cancel', {}), 404, 'cancelOrder').code).toBe('not_found');
    const other = await t.merchant({ locations: 1 });
    expect(json(await other.op('POST', `/orders/${order.id}/cancel`, {}), 404, 'cancelOrder').code).toBe('not_found');
    expect(json(await m.op('POST', `/orders/${order.id}/cancel`, { reason: 'x' }), 422, 'cancelOrder').errors?.[0].path).toBe('/reason');
  });
});

describe('GET /orders', () => {
  let mm: TestMerchant;
  let k: string;
  let ids: string[];
  beforeAll(async () => {
    mm = await t.merchant({ locations: 2 });
    k = await mm.key(['orders.read']);
    const p = await makeProduct(t, mm, 'List Tee', [{ sku: 'ORD-LIST', price: 3, inventory_policy: 'continue' }]);
    ids = [];
    for (let i = 0; i < 7; i++) ids.push((await placeOrder(mm, mm.locations[i % 2], [{ variant_id: p.variants[0].id, quantity: 1 + (i % 3) }])).id);
    await mm.op('POST', `/orders/${ids[1]}/cancel`, {});
    ids.push(ids.splice(1, 1)[0]); // the cancelled one moved to the end
  });

  it('walks every order once in (updated_at, id) order with a constant query count per page', async () => {
    const { ids: seen, pages } = await walk(t, k, '/orders', 3);
    expect(pages).toBe(3);
    expect(seen).toEqual(ids);
    const page = (limit: number) => countStatements(async () => json(await t.api(k, 'GET', `/orders?limit=${limit}`), 200, 'listOrders'));
    const small = await page(2);
    expect(await page(8)).toBe(small);
  });

  it('filters by status, created_after and updated_after; rejects unknown values', async () => {
    const cancelled = json(await t.api(k, 'GET', '/orders?status=cancelled'), 200, 'listOrders').data;
    expect(cancelled.map((o: { id: string }) => o.id)).toEqual([ids[6]]);
    expect(json(await t.api(k, 'GET', '/orders?status=open'), 200, 'listOrders').data).toHaveLength(6);
    expect(json(await t.api(k, 'GET', '/orders?status=closed'), 200, 'listOrders').data).toEqual([]);
    const all = json(await t.api(k, 'GET', '/orders'), 200, 'listOrders').data;
    const byCreated = [...all].sort((a: { created_at: string }, b: { created_at: string }) => a.created_at.localeCompare(b.created_at));
    const pivot = byCreated[2].created_at;
    const created = json(await t.api(k, 'GET', `/orders?created_after=${pivot}`), 200, 'listOrders').data;
    expect(created.map((o: { id: string }) => o.id).sort()).toEqual(
      all
        .filter((o: { created_at: string }) => o.created_at > pivot)
        .map((o: { id: string }) => o.id)
        .sort(),
    );
    const updated = json(await t.api(k, 'GET', `/orders?updated_after=${all[5].updated_at}`), 200, 'listOrders').data;
    expect(updated.map((o: { id: string }) => o.id)).toEqual(
      all.filter((o: { updated_at: string }) => o.updated_at > all[5].updated_at).map((o: { id: string }) => o.id),
    );
    // More fractional digits than the stored milliseconds are cut, which keeps `>` exact:
    // 0.1 ms before a record's time lets it in, 0.9 ms after keeps it out (rounding would do neither).
    const edge = all[5].updated_at as string; // …ss.mmmZ
    const before = new Date(Date.parse(edge) - 1).toISOString().replace('Z', '9Z');
    const after = edge.replace('Z', '9Z');
    const withBefore = json(await t.api(k, 'GET', `/orders?updated_after=${before}`), 200, 'listOrders').data.map((o: { id: string }) => o.id);
    const withAfter = json(await t.api(k, 'GET', `/orders?updated_after=${after}`), 200, 'listOrders').data.map((o: { id: string }) => o.id);
    expect(withBefore).toContain(all[5].id);
    expect(withAfter).not.toContain(all[5].id);
    const bad = json(await t.api(k, 'GET', '/orders?status=bogus'), 422, 'listOrders');
    expect(bad.errors?.[0].path).toBe('/status');
    expect(json(await t.api(k, 'GET', '/orders?created_after=yesterday'), 422, 'listOrders').errors?.[0].path).toBe('/created_after');
  });

  it("a location-restricted key sees only its location's orders; others are 404", async () => {
    const restricted = await mm.key(['orders.read'], [mm.locations[1]]);
    const all = json(await t.api(k, 'GET', '/orders'), 200, 'listOrders').data;
    const mine = all.filter((o: { fulfillment_location_id: string }) => o.fulfillment_location_id === mm.locations[1]);
    expect(json(await t.api(restricted, 'GET', '/orders'), 200, 'listOrders').data).toEqual(mine);
    const hidden = all.find((o: { fulfillment_location_id: string }) => o.fulfillment_location_id === mm.locations[0]);
    expect(json(await t.api(restricted, 'GET', `/orders/${hidden!.id}`), 404, 'getOrder').code).toBe('not_found');
    expect(json(await t.api(restricted, 'GET', `/orders/${mine[0].id}`), 200, 'getOrder').data).toEqual(mine[0]);
  });

  it("another merchant's order, an unknown id and a non-UUID id are 404; the scope is orders.read", async () => {
    expect(json(await t.api(key, 'GET', `/orders/${ids[0]}`), 404, 'getOrder').code).toBe('not_found');
    expect(json(await t.api(k, 'GET', '/orders/00000000-0000-4000-8000-000000000000'), 404, 'getOrder').code).toBe('not_found');
    expect(json(await t.api(k, 'GET', '/orders/123'), 404, 'getOrder').code).toBe('not_found');
    const noScope = await mm.key(['products.read']);
    expect(json(await t.api(noScope, 'GET', '/orders'), 403, 'listOrders').code).toBe('insufficient_scope');
  });
});

describe('demo seed', () => {
  it('places open orders at both locations through intake, one partially fulfilled and shipped; skips without a catalog', async () => {
    const { seedOrders } = await import('../../seed/orders.ts');
    const demoMerchant = await t.merchant({ locations: 2 });
    const ctx = { db: t.database.db, merchantId: demoMerchant.id, apiKeyId: null, locationIds: null };
    const locations = demoMerchant.locations.map((id, i) => ({ id, name: `L${i}` }));
    const base = { ctx, locations, vendors: [], tags: [], images: [] };
    await seedOrders({ ...base, variants: {} });
    const k = await demoMerchant.key(WAREHOUSE);
    expect(json(await t.api(k, 'GET', '/orders'), 200, 'listOrders').data).toEqual([]);

    const q = await makeProduct(t, demoMerchant, 'Seeded', [
      { sku: 'SEED-1', price: 10 },
      { sku: 'SEED-2', price: 20 },
      { sku: 'SEED-3', price: 30 },
    ]);
    await seedOrders({ ...base, variants: Object.fromEntries(q.variants.map((v) => [v.sku, v.id])) });
    const orders = json(await t.api(k, 'GET', '/orders'), 200, 'listOrders').data;
    expect(orders).toHaveLength(4);
    expect(new Set(orders.map((o: { fulfillment_location_id: string }) => o.fulfillment_location_id))).toEqual(new Set(demoMerchant.locations));
    expect(orders.every((o: { status: string }) => o.status === 'open')).toBe(true);
    const partial = orders.filter((o: { fulfillment_status: string }) => o.fulfillment_status === 'partially_fulfilled');
    expect(partial).toHaveLength(1);
    const f = json(await t.api(k, 'GET', `/fulfillments/${partial[0].fulfillment_summary.fulfillment_ids[0]}`), 200, 'getFulfillment').data;
    expect(f.status).toBe('shipped');
    expect(f.tracking?.tracking_number).toBe('1Z999AA10123456784');
  });
});
