// The warehouse writes and lists are set-based: the number of statements a request runs does not
// grow with its size (issue #14). Counted from the statements the test database records; not timed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startMerchantApp, statementsOf, type TestApp, type TestMerchant } from './helpers.ts';
import { fulfil, makeProduct, placeOrder, WAREHOUSE } from './fixtures.ts';

let t: TestApp;
let m: TestMerchant;
let key: string;
let variants: { id: string }[] = [];

beforeAll(async () => {
  // The request log writes its buffered entries in batches, whenever a batch is due: not counted here.
  ({ t, m, key } = await startMerchantApp({ config: { requestLogEnabled: false }, locations: 1, scopes: WAREHOUSE }));
  // 300 variants (a product has at most 100), stock that never runs short.
  for (const n of [0, 1, 2]) {
    const spec = Array.from({ length: 100 }, (_, i) => ({ sku: `SC-${n}-${i}`, price: 1, inventory_policy: 'continue' as const, option1: `V${i}` }));
    variants = [...variants, ...(await makeProduct(t, m, `Many variants ${n}`, spec)).variants];
  }
});
afterAll(() => t?.close());

const TRANSACTION = /^(begin|commit|rollback|savepoint|release|start transaction)\b/i;
// The key's lookup (cached in process) and its batched last_used_at write come and go by themselves.
const KEY_LOOKUP = /\bapi_keys\b/;

/** Statements the request sent, transaction control and the API key's own aside. */
async function statements(run: () => Promise<unknown>): Promise<string[]> {
  return (await statementsOf(run)).filter((q) => !TRANSACTION.test(q.trim()) && !KEY_LOOKUP.test(q));
}

const lines = (n: number, quantity = 1) => variants.slice(0, n).map((v) => ({ variant_id: v.id, quantity }));

describe('statements per request do not grow with its size', () => {
  it('POST /inventory/adjustments: at most 8 for 10 rows, the same for 100 (the most a batch takes)', async () => {
    const batch = (n: number) => variants.slice(0, n).map((v) => ({ variant_id: v.id, fulfillment_location_id: m.locations[0], adjustment: 5 }));
    const ten = await statements(async () => json(await t.api(key, 'POST', '/inventory/adjustments', { adjustments: batch(10) }), 200, 'adjustInventory'));
    const hundred = await statements(async () => json(await t.api(key, 'POST', '/inventory/adjustments', { adjustments: batch(100) }), 200, 'adjustInventory'));
    expect(ten.length).toBeLessThanOrEqual(8);
    expect(hundred.length).toBe(ten.length);
  });

  it('POST /fulfillments: at most 12 for 3 lines, the same for 250', async () => {
    const small = await placeOrder(m, m.locations[0], lines(3));
    const large = await placeOrder(m, m.locations[0], lines(250));
    const three = await statements(async () => json(await fulfil(t, key, small, [1, 1, 1]), 201, 'createFulfillment'));
    const all = await statements(async () =>
      json(
        await fulfil(
          t,
          key,
          large,
          large.line_items.map(() => 1),
        ),
        201,
        'createFulfillment',
      ),
    );
    expect(three.length).toBeLessThanOrEqual(12);
    expect(all.length).toBe(three.length);
  });

  it('order intake (at most 10) and cancel (at most 12): the same for 1 line and for 250', async () => {
    let one: { id: string } = { id: '' };
    let many: { id: string } = { id: '' };
    const intakeOne = await statements(async () => (one = await placeOrder(m, m.locations[0], lines(1))));
    const intakeMany = await statements(async () => (many = await placeOrder(m, m.locations[0], lines(250))));
    expect(intakeOne.length).toBeLessThanOrEqual(10);
    expect(intakeMany.length).toBe(intakeOne.length);
    const cancelOne = await statements(async () => json(await m.op('POST', `/orders/${one.id}/cancel`, {}), 200, 'cancelOrder'));
    const cancelMany = await statements(async () => json(await m.op('POST', `/orders/${many.id}/cancel`, {}), 200, 'cancelOrder'));
    expect(cancelOne.length).toBeLessThanOrEqual(12);
    expect(cancelMany.length).toBe(cancelOne.length);
  });

  it('lists: one statement, whatever the page size', async () => {
    for (let i = 0; i < 12; i++) json(await fulfil(t, key, await placeOrder(m, m.locations[0], lines(2)), [1]), 201, 'createFulfillment');
    const baseline = 1;
    const lists = [
      ['/orders', 'listOrders'],
      ['/fulfillments', 'listFulfillments'],
      ['/inventory', 'listInventory'],
    ] as const;
    for (const [path, operation] of lists) {
      for (const limit of [1, 250]) {
        const page = await statements(async () =>
          expect(json(await t.api(key, 'GET', `${path}?limit=${limit}`), 200, operation).data.length).toBeGreaterThan(limit === 1 ? 0 : 10),
        );
        expect([path, limit, page.length]).toEqual([path, limit, baseline]);
      }
    }
  });

  it('a list statement is written with the rows it fetches: limit + 1, or the next fixed size up (six texts a list)', async () => {
    // PostgreSQL plans `limit $n` as a tenth of the table: at a million rows every run was planned anew.
    const lists = [
      ['/orders', 'listOrders'],
      ['/fulfillments', 'listFulfillments'],
      ['/inventory', 'listInventory'],
      ['/products', 'listProducts'],
    ] as const;
    const fetched = { 1: 2, 2: 11, 10: 11, 11: 26, 25: 26, 26: 51, 50: 51, 51: 101, 100: 101, 101: 251, 249: 251, 250: 251 };
    for (const [path, operation] of lists) {
      const total = json(await t.api(key, 'GET', `${path}?limit=250`), 200, operation).data.length;
      const texts = new Set<string>();
      for (const [limit, rows] of Object.entries(fetched)) {
        const [text] = await statements(async () =>
          expect(json(await t.api(key, 'GET', `${path}?limit=${limit}`), 200, operation).data.length).toBe(Math.min(Number(limit), total)),
        );
        expect([path, limit, [...text.matchAll(/\blimit (\S+?)\b/g)].map((m) => m[1])]).toEqual([path, limit, [String(rows)]]);
        texts.add(text);
      }
      expect([path, texts.size]).toEqual([path, 6]);
    }
  });

  it('gets: one statement', async () => {
    const baseline = 1;
    const order = json(await t.api(key, 'GET', '/orders?limit=1'), 200, 'listOrders').data[0];
    const fulfillment = json(await t.api(key, 'GET', '/fulfillments?limit=1'), 200, 'listFulfillments').data[0];
    const row = json(await t.api(key, 'GET', '/inventory?limit=1'), 200, 'listInventory').data[0];
    const gets = [
      [`/orders/${order.id}`, 'getOrder'],
      [`/fulfillments/${fulfillment.id}`, 'getFulfillment'],
      [`/inventory/${row.id}`, 'getInventoryRow'],
    ] as const;
    for (const [path, operation] of gets) {
      const one = await statements(async () => json(await t.api(key, 'GET', path), 200, operation));
      expect([path, one.length]).toEqual([path, baseline]);
    }
  });
});
