// The isolation matrix: every integration route, taken from the router (so a new route is covered
// automatically), called with merchant B's key against merchant A's records, and with a key of A
// restricted to location 2 against A's location-1 orders, fulfillments and inventory. The answer
// is 404 / 422 / 403 or a 2xx that contains none of the hidden ids: never the data.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../src/http/scopes.ts';
import { json, startTestApp, type TestApp, type TestMerchant } from './helpers.ts';
import { addStock, fulfil, makeProduct, placeOrder } from './fixtures.ts';

const PREFIX = '/api/integrations/v1';

let t: TestApp;
let a: TestMerchant;
let aKey: string;
let bKey: string;
let restrictedKey: string;
const A: Record<string, string> = {};
/** Every id of merchant A: none may appear in a 2xx answer to merchant B. */
let aIds: string[] = [];
/** A's location-1 ids: none may appear in a 2xx answer to the key restricted to location 2. */
let location1Ids: string[] = [];

beforeAll(async () => {
  t = await startTestApp();
  a = await t.merchant({ locations: 2, name: 'Merchant A' });
  const b = await t.merchant({ locations: 1, name: 'Merchant B' });
  aKey = await a.key([...SCOPES]);
  bKey = await b.key([...SCOPES]);
  restrictedKey = await a.key([...SCOPES], [a.locations[1]]);
  const [l1, l2] = a.locations;

  A.tag = json(await a.op('POST', '/tags', { name: 'iso tag' }), 201, 'createTag').data.id;
  A.vendor = json(await a.op('POST', '/vendors', { name: 'iso vendor' }), 201, 'createVendor').data.id;
  A.asset = json(await a.op('POST', '/media-assets', { url: 'https://img.example.com/iso.jpg', kind: 'image' }), 201, 'createMediaAsset').data.id;
  const product = await makeProduct(t, a, 'Isolated Tee', [{ sku: 'ISO-1', price: 9 }]);
  A.product = product.id;
  A.variant = product.variants[0].id;
  const db = t.database.db;
  A.collection = json(await t.api(aKey, 'POST', '/collections', { title: 'Isolated collection' }), 201, 'createCollection').data.id;
  A.video = json(
    await t.api(aKey, 'POST', '/social-videos', { title: 'Isolated video', video_url: 'https://videos.example.com/iso.mp4' }),
    201,
    'createSocialVideo',
  ).data.id;

  const inv1 = await addStock(t, aKey, A.variant, l1, 20);
  const inv2 = await addStock(t, aKey, A.variant, l2, 20);
  const o1 = await placeOrder(a, l1, [{ variant_id: A.variant, quantity: 5 }]);
  const o2 = await placeOrder(a, l2, [{ variant_id: A.variant, quantity: 5 }]);
  const f1 = json(await fulfil(t, aKey, o1, [1]), 201, 'createFulfillment').data;
  const f2 = json(await fulfil(t, aKey, o2, [1]), 201, 'createFulfillment').data;
  Object.assign(A, {
    l1,
    l2,
    inv1: inv1.id,
    inv2: inv2.id,
    order1: o1.id,
    line1: o1.line_items[0].id,
    order2: o2.id,
    line2: o2.line_items[0].id,
    fulfillment1: f1.id,
    fulfillment2: f2.id,
  });
  const orderEvent = async (location: string) =>
    (
      await db
        .selectFrom('events')
        .select('id')
        .where('merchant_id', '=', a.id)
        .where('type', '=', 'order.created')
        .where('location_id', '=', location)
        .executeTakeFirstOrThrow()
    ).id;
  A.event1 = await orderEvent(l1);
  A.event2 = await orderEvent(l2);
  aIds = Object.values(A);
  location1Ids = [l1, inv1.id, o1.id, o1.line_items[0].id, f1.id, A.event1];
});
afterAll(() => t?.close());

type Actor = 'other merchant' | 'restricted key';

/** The record of A a path parameter stands for, by the collection it follows. */
function recordFor(actor: Actor, url: string, param: string): string {
  const segments = url.split('/');
  const collection = segments[segments.indexOf(param) - 1];
  const restricted = actor === 'restricted key';
  const byCollection: Record<string, string | undefined> = {
    orders: restricted ? A.order1 : A.order2,
    fulfillments: restricted ? A.fulfillment1 : A.fulfillment2,
    products: A.product,
    collections: A.collection,
    'social-videos': A.video,
    events: restricted ? A.event1 : A.event2,
    inventory: restricted ? A.inv1 : A.inv2,
    locations: restricted ? A.l1 : A.l2,
    vendors: A.vendor,
    tags: A.tag,
    'media-assets': A.asset,
  };
  const id = byCollection[collection];
  if (!id) throw new Error(`isolation matrix: no record for ${param} in ${url}; teach the test this route`);
  return id;
}

/** A body for a write route that points at A's records (or, restricted, at location 1). */
function bodyFor(actor: Actor, method: string, path: string): unknown {
  const restricted = actor === 'restricted key';
  const order = restricted ? { id: A.order1, line: A.line1 } : { id: A.order2, line: A.line2 };
  const bodies: Record<string, unknown> = {
    'POST /fulfillments': { merchant_order_id: order.id, items: [{ merchant_order_item_id: order.line, quantity: 1 }] },
    'POST /fulfillments/:id/tracking': { tracking_number: 'ISO-TRACK' },
    'POST /inventory/adjustments': { adjustments: [{ variant_id: A.variant, fulfillment_location_id: A.l1, adjustment: 1 }] },
    'POST /products': restricted ? { title: 'Probe' } : { title: 'Probe', vendor_id: A.vendor, tag_ids: [A.tag], primary_image_asset_id: A.asset },
    'PATCH /products/:id': { title: 'Probe' },
    'POST /collections': restricted ? { title: 'Probe' } : { title: 'Probe', product_ids: [A.product], tag_ids: [A.tag] },
    'PATCH /collections/:id': { title: 'Probe' },
    'POST /social-videos': restricted
      ? { title: 'Probe', video_url: 'https://videos.example.com/probe.mp4' }
      : { title: 'Probe', video_url: 'https://videos.example.com/probe.mp4', product_ids: [A.product], collection_ids: [A.collection] },
    'PATCH /social-videos/:id': { title: 'Probe' },
  };
  const key = `${method} ${path}`;
  if (!(key in bodies)) throw new Error(`isolation matrix: no body for ${key}; teach the test this route`);
  return bodies[key];
}

/** What the answer must be, beyond "no hidden id in a 2xx body". */
function expectedStatus(actor: Actor, method: string, path: string): number[] | null {
  const hasId = path.includes('/:');
  if (actor === 'other merchant') {
    if (hasId) return [404];
    if (method === 'GET' || method === 'HEAD') return [200];
    return [422];
  }
  const map: Record<string, number[]> = {
    'GET /orders/:id': [404],
    'HEAD /orders/:id': [404],
    'GET /fulfillments/:id': [404],
    'GET /events/:id': [404],
    'HEAD /events/:id': [404],
    'HEAD /fulfillments/:id': [404],
    'GET /inventory/:id': [404],
    'HEAD /inventory/:id': [404],
    'GET /locations/:id': [404],
    'HEAD /locations/:id': [404],
    'POST /fulfillments/:id/tracking': [404],
    'POST /fulfillments': [422],
    'POST /inventory/adjustments': [403],
  };
  return map[`${method} ${path}`] ?? null;
}

const routes = () => {
  const seen = new Set<string>();
  return t.app.routeList.filter((r) => {
    const k = `${r.method} ${r.url}`;
    if (!r.url.startsWith(`${PREFIX}/`) || r.url.endsWith('/openapi.json') || seen.has(k)) return false;
    seen.add(k);
    return true;
  });
};

describe('isolation matrix', () => {
  it('covers the warehouse routes (the walk is not empty)', () => {
    const urls = routes().map((r) => `${r.method} ${r.url.slice(PREFIX.length)}`);
    for (const r of [
      'GET /orders',
      'GET /orders/:id',
      'GET /fulfillments',
      'GET /fulfillments/:id',
      'POST /fulfillments',
      'POST /fulfillments/:id/tracking',
      'GET /inventory',
      'GET /inventory/:id',
      'GET /locations/:id',
      'POST /inventory/adjustments',
      'GET /events',
      'GET /events/:id',
    ]) {
      expect(urls).toContain(r);
    }
  });

  for (const actor of ['other merchant', 'restricted key'] as Actor[]) {
    it(`${actor}: every route answers 404/422/403 or data without the hidden ids`, async () => {
      const key = actor === 'other merchant' ? bKey : restrictedKey;
      const hidden = actor === 'other merchant' ? aIds : location1Ids;
      const failures: string[] = [];
      for (const route of routes()) {
        const path = route.url.slice(PREFIX.length);
        const url = path.replace(/:([A-Za-z]+)/g, (param) => recordFor(actor, path, param));
        const write = !['GET', 'HEAD'].includes(route.method);
        const res = await t.api(key, route.method, url, write ? bodyFor(actor, route.method, path) : undefined);
        const label = `${actor}: ${route.method} ${path} → ${res.statusCode}`;
        const expected = expectedStatus(actor, route.method, path);
        if (expected && !expected.includes(res.statusCode)) failures.push(`${label}, expected ${expected.join(' or ')}: ${res.body.slice(0, 200)}`);
        if (res.statusCode >= 500) failures.push(`${label}: ${res.body.slice(0, 200)}`);
        if (res.statusCode < 300) {
          const leaked = hidden.filter((id) => res.body.includes(id));
          if (leaked.length) failures.push(`${label} leaks ${leaked.join(', ')}`);
        }
      }
      expect(failures).toEqual([]);
    });
  }

  it('the restricted key still sees its own location: the matrix is not vacuous', async () => {
    expect(json(await t.api(restrictedKey, 'GET', `/orders/${A.order2}`), 200, 'getOrder').data.id).toBe(A.order2);
    expect(json(await t.api(restrictedKey, 'GET', '/inventory'), 200, 'listInventory').data.map((r: { id: string }) => r.id)).toEqual([A.inv2]);
    expect(json(await t.api(restrictedKey, 'GET', `/inventory?location_id=${A.l1}`), 403, 'listInventory').code).toBe('location_forbidden');
    expect(
      json(await t.api(aKey, 'GET', '/orders'), 200, 'listOrders')
        .data.map((o: { id: string }) => o.id)
        .sort(),
    ).toEqual([A.order1, A.order2].sort());
    const feed = json(await t.api(restrictedKey, 'GET', '/events?types=order.created'), 200, 'listEvents').data;
    expect(feed.map((e: { id: string }) => e.id)).toEqual([A.event2]);
  });
});
