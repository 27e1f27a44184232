// The event feed on both databases: envelope and positions, paging with after / cursor, types,
// visibility by scope and location, ping, retention (410), and the horizon that holds back an
// open transaction's events (PGlite too).
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_TYPES, emitEvent } from '../../events/outbox.ts';
import { decodePosition, type EventEnvelope } from '../../events/envelope.ts';
import { SCOPES } from '../../http/scopes.ts';
import { json, startMerchantApp, untypedJson, type TestApp, type TestMerchant } from '../../../test/helpers.ts';
import type { DocumentNode, DocumentShape } from '../../../test/contract.ts';
import { fulfil, makeProduct, pingedEndpoint, placeOrder, WAREHOUSE, type MadeProduct } from '../../../test/fixtures.ts';
import { merchantScope } from '../../db/scope.ts';
import { selectFeedPage } from './queries.ts';
import { waitFor } from '../../../test/wait.ts';

let t: TestApp;
let m: TestMerchant;
let all: string;
let p: MadeProduct;
/** Every event of the setup, as the all-scopes key sees it in the feed. */
let feed: Feed[];

/** A feed event as the envelope is written, with the object fields these tests read. */
type Feed = Omit<EventEnvelope, 'data'> & { data: { object: { id: string; variants?: { inventory: { fulfillment_location_id: string }[] }[] } } };

const adjust = async (key: string, variantId: string, locationId: string, adjustment: number) =>
  json(
    await t.api(key, 'POST', '/inventory/adjustments', { adjustments: [{ variant_id: variantId, fulfillment_location_id: locationId, adjustment }] }),
    200,
    'adjustInventory',
  );

async function page(key: string, query = '') {
  return json(await t.api(key, 'GET', `/events${query}`), 200, 'listEvents') as { data: Feed[]; meta: { limit: number; next_cursor: string | null } };
}

/**
 * The feed's horizon is the server's oldest open transaction, and transaction ids are shared by every
 * database of a PostgreSQL server: another suite's open transaction (other test files run beside
 * this one) holds back this database's events for a moment. Wait until every committed event of
 * this database is below the horizon before reading what "the whole feed" is.
 */
async function settled() {
  await waitFor(
    async () => {
      const { rows } = await sql<{
        ok: boolean;
      }>`select coalesce((select max(position_xid) from events) < pg_snapshot_xmin(pg_current_snapshot()), true) as ok`.execute(t.database.db);
      return rows[0].ok;
    },
    { deadlineMs: 30_000, what: 'every committed event to pass the feed horizon' },
  );
}

/** Follow the feed from `after` to its end, `limit` at a time, with `after` = the last position. */
async function follow(key: string, query = '', limit = 250): Promise<Feed[]> {
  await settled();
  const out: Feed[] = [];
  for (;;) {
    const after = out.length ? `&after=${out[out.length - 1].position}` : '';
    const body = await page(key, `?limit=${limit}${query}${after}`);
    out.push(...body.data);
    if (body.data.length < limit) return out;
  }
}

beforeAll(async () => {
  ({ t, m, key: all } = await startMerchantApp({ config: { eventRetentionDays: 30 }, locations: 2, scopes: SCOPES }));
  p = await makeProduct(t, m, 'Feed Tee', [{ sku: 'FEED-1', price: 5, inventory_policy: 'continue' }]);
  await adjust(all, p.variants[0].id, m.locations[0], 10);
  await adjust(all, p.variants[0].id, m.locations[1], 20);
  const order = await placeOrder(m, m.locations[0], [{ variant_id: p.variants[0].id, quantity: 2 }]);
  json(await fulfil(t, all, order, [1]), 201, 'createFulfillment');
  await placeOrder(m, m.locations[1], [{ variant_id: p.variants[0].id, quantity: 1 }]);
  json(await t.api(all, 'PATCH', `/products/${p.id}`, { variants: [{ id: p.variants[0].id, price: 6 }] }), 200, 'updateProduct');
  feed = await follow(all);
});
afterAll(() => t?.close());

describe('GET /events', () => {
  it('lists every event in commit order as the webhook envelope plus a position that increases as a string', async () => {
    expect(feed.map((e) => [e.type, e.location_id])).toEqual([
      ['product.created', null],
      ['inventory.updated', m.locations[0]],
      ['inventory.updated', m.locations[1]],
      ['order.created', m.locations[0]],
      ['inventory.updated', m.locations[0]],
      ['fulfillment.created', m.locations[0]],
      ['order.updated', m.locations[0]],
      ['inventory.updated', m.locations[0]],
      ['order.created', m.locations[1]],
      ['inventory.updated', m.locations[1]],
      ['product.updated', null],
    ]);
    const stored = await t.database.db.selectFrom('events').select(['id', 'type']).where('merchant_id', '=', m.id).orderBy('seq').execute();
    expect(feed.map((e) => e.id)).toEqual(stored.map((e) => e.id));
    for (const e of feed) {
      expect(Object.keys(e)).toEqual(['id', 'type', 'created_at', 'merchant_id', 'location_id', 'position', 'data']);
      expect(e.merchant_id).toBe(m.id);
      expect(e.position).toMatch(/^[0-9a-f]{32}$/);
    }
    const positions = feed.map((e) => e.position);
    expect([...positions].sort()).toEqual(positions);
    expect(new Set(positions).size).toBe(positions.length);
    // The object is the resource as the API returns it now (the last event of each is its final state).
    const product = json(await t.api(all, 'GET', `/products/${p.id}`), 200, 'getProduct').data;
    expect(feed[10].data.object).toEqual(product);
    const row = json(await t.api(all, 'GET', `/inventory?variant_id=${p.variants[0].id}&location_id=${m.locations[1]}`), 200, 'listInventory').data[0];
    expect(feed[9].data.object).toEqual(row);
  });

  it('after= a position returns exactly what follows it; the last position gives an empty page', async () => {
    expect((await page(all, `?after=${feed[3].position}`)).data).toEqual(feed.slice(4));
    const end = await page(all, `?after=${feed[feed.length - 1].position}`);
    expect(end).toMatchObject({ data: [], meta: { limit: 50, next_cursor: null } });
  });

  it('pages with limit and next_cursor (null on the last page) give the same sequence', async () => {
    const seen: Feed[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const body = await page(all, `?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(body.meta.limit).toBe(3);
      if (body.meta.next_cursor) expect(body.data).toHaveLength(3);
      seen.push(...body.data);
      cursor = body.meta.next_cursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(4);
    expect(seen).toEqual(feed);
  });

  it('types filters by event type; an unknown type, bad position or both after and cursor are 422 naming the field', async () => {
    const orders = await follow(all, '&types=order.created,order.updated');
    expect(orders.map((e) => e.type)).toEqual(['order.created', 'order.updated', 'order.created']);
    expect(orders).toEqual(feed.filter((e) => e.type === 'order.created' || e.type === 'order.updated'));
    // The parameter repeated (how many generated clients send an array) is the same list, and its
    // cursors are the comma-separated form's.
    expect(await follow(all, '&types=order.created&types=order.updated')).toEqual(orders);
    const repeated = (await page(all, '?types=order.updated&types=order.created&limit=1')).meta.next_cursor!;
    expect((await page(all, `?types=order.created,order.updated&limit=1&cursor=${encodeURIComponent(repeated)}`)).data).toEqual([orders[1]]);
    expect(json(await t.api(all, 'GET', '/events?types=order.created&types=order.shipped'), 422, 'listEvents').errors).toEqual([
      { path: '/types', message: expect.stringContaining('unknown event type "order.shipped"'), code: 'invalid_value' },
    ]);
    const bad = json(await t.api(all, 'GET', '/events?types=order.created,order.shipped'), 422, 'listEvents');
    expect(bad.errors).toEqual([{ path: '/types', message: expect.stringContaining('unknown event type "order.shipped"'), code: 'invalid_value' }]);
    expect(json(await t.api(all, 'GET', '/events?types=ping'), 422, 'listEvents').errors?.[0].path).toBe('/types');
    expect(json(await t.api(all, 'GET', '/events?after=zz'), 422, 'listEvents').errors?.[0].path).toBe('/after');
    expect(json(await t.api(all, 'GET', '/events?limit=251'), 422, 'listEvents').errors?.[0].path).toBe('/limit');
    expect(json(await t.api(all, 'GET', '/events?since=1'), 422, 'listEvents').errors?.[0].path).toBe('/since');
    const cursor = (await page(all, '?limit=1')).meta.next_cursor!;
    expect(json(await t.api(all, 'GET', `/events?after=${feed[0].position}&cursor=${encodeURIComponent(cursor)}`), 422, 'listEvents').errors?.[0].path).toBe(
      '/cursor',
    );
    // A cursor is bound to its filters and signed.
    expect(json(await t.api(all, 'GET', `/events?types=order.created&cursor=${encodeURIComponent(cursor)}`), 400, 'listEvents').code).toBe('malformed_request');
    expect(json(await t.api(all, 'GET', `/events?cursor=${encodeURIComponent(cursor.slice(0, -2) + 'xx')}`), 400, 'listEvents').code).toBe('malformed_request');
    // Bound to the set of types, not to how they were written: the same types in another order (or
    // one repeated) take the cursor.
    const typed = (await page(all, '?types=product.created,inventory.updated&limit=1')).meta.next_cursor!;
    const reordered = await page(all, `?types=inventory.updated,product.created,product.created&limit=1&cursor=${encodeURIComponent(typed)}`);
    expect(reordered.data.map((e) => e.type).every((type) => type === 'product.created' || type === 'inventory.updated')).toBe(true);
    // A well-formed position that is no event of this merchant, with kept events before it, is 422.
    const beyond = 'ffff' + feed[3].position.slice(4);
    const unknownPosition = json(await t.api(all, 'GET', `/events?after=${beyond}`), 422, 'listEvents');
    expect(unknownPosition.errors).toEqual([{ path: '/after', message: 'no event of this merchant has this position', code: 'unknown_id' }]);
    // The detail names the field by its pointer, as every validation detail does.
    expect(unknownPosition.detail).toBe('/after: no event of this merchant has this position');
    // Halves beyond PostgreSQL's bigint (the sequence's type) are no position either: 422, not a failed cast's 500.
    for (const after of ['00000000000000008000000000000000', 'ffffffffffffffffffffffffffffffff']) {
      expect(json(await t.api(all, 'GET', `/events?after=${after}`), 422, 'listEvents').errors).toEqual([
        { path: '/after', message: 'no event of this merchant has this position', code: 'unknown_id' },
      ]);
    }
  });

  it('GET /events/:id answers the feed item; another merchant, a hidden type or a bad id is 404', async () => {
    expect(json(await t.api(all, 'GET', `/events/${feed[5].id}`), 200, 'getEvent').data).toEqual(feed[5]);
    const other = await t.merchant({ locations: 1 });
    expect(json(await t.api(await other.key([...SCOPES]), 'GET', `/events/${feed[5].id}`), 404, 'getEvent').code).toBe('not_found');
    expect(json(await t.api(await m.key(['orders.read']), 'GET', `/events/${feed[5].id}`), 404, 'getEvent').code).toBe('not_found');
    expect(json(await t.api(all, 'GET', '/events/not-a-uuid'), 404, 'getEvent').code).toBe('not_found');
  });

  it('is in the OpenAPI document as listEvents and getEvent, with the full event schema and 410', async () => {
    const doc = untypedJson<DocumentShape>(await t.app.inject({ method: 'GET', url: '/api/integrations/v1/openapi.json' }), 200);
    const list = doc.paths['/api/integrations/v1/events'].get;
    const one = doc.paths['/api/integrations/v1/events/{id}'].get;
    expect([list.operationId, one.operationId]).toEqual(['listEvents', 'getEvent']);
    expect(list.parameters.map((p: { name: string }) => p.name).sort()).toEqual(['after', 'cursor', 'limit', 'types']);
    expect(Object.keys(list.responses)).toContain('410');
    const schemas = doc.components.schemas;
    const ref = (s: DocumentNode): DocumentNode => (s.$ref ? schemas[s.$ref.split('/').pop()!] : s);
    const page = ref(list.responses['200'].content['application/json'].schema);
    const union = ref(page.properties.data.items);
    const variants = union.oneOf.map(ref);
    expect(variants.map((v) => v.properties.type.enum[0])).toEqual(EVENT_TYPES);
    // One member per type, picked by `type` (generators that deserialize by class need the discriminator).
    expect(union.discriminator.propertyName).toBe('type');
    expect(Object.keys(union.discriminator.mapping)).toEqual(EVENT_TYPES);
    expect(union.discriminator.mapping['order.created']).toBe('#/components/schemas/OrderCreatedEvent');
    expect(Object.keys(variants[0].properties)).toEqual(['id', 'type', 'created_at', 'merchant_id', 'location_id', 'position', 'data']);
    expect(Object.keys(ref(variants[0].properties.data.properties.object).properties)).toContain('fulfillment_summary');
    expect(ref(one.responses['200'].content['application/json'].schema).properties.data.$ref).toBe('#/components/schemas/Event');
    // Webhook bodies carry the position too.
    expect(doc.webhooks['order.created'].post.parameters.map((p: { name: string }) => p.name)).toContain('X-Service-Webhook-Position');
  });

  it('ping never appears in the feed', async () => {
    await pingedEndpoint(m, 'http://127.0.0.1:9/hooks', ['order.created']);
    const ping = await t.database.db.selectFrom('events').select(['id']).where('merchant_id', '=', m.id).where('type', '=', 'ping').executeTakeFirstOrThrow();
    expect(await follow(all)).toEqual(feed);
    expect(json(await t.api(all, 'GET', `/events/${ping.id}`), 404, 'getEvent').code).toBe('not_found');
  });
});

describe('visibility follows the key', () => {
  it('each event type needs the read scope of its resource; naming an unreadable type is 403 naming the scope', async () => {
    const ordersOnly = await follow(await m.key(['orders.read']));
    expect(ordersOnly).toEqual(feed.filter((e) => e.type.startsWith('order.')));
    const warehouse = await follow(await m.key(WAREHOUSE));
    expect(warehouse).toEqual(feed);
    const inventory = await m.key(['inventory.read', 'fulfillments.read']);
    expect(await follow(inventory)).toEqual(feed.filter((e) => e.type.startsWith('inventory.') || e.type.startsWith('fulfillment.')));
    const denied = json(await t.api(inventory, 'GET', '/events?types=inventory.updated,order.created'), 403, 'listEvents');
    expect(denied).toMatchObject({ code: 'insufficient_scope', detail: 'Events of type "order.created" need the scope "orders.read".' });
    const writeOnly = json(await t.api(await m.key(['inventory.adjust']), 'GET', '/events'), 403, 'listEvents');
    expect(writeOnly.code).toBe('insufficient_scope');
    expect(writeOnly.detail).toContain('orders.read');
    const products = await follow(await m.key(['products.read']));
    expect(products.map((e) => e.type)).toEqual(['product.created', 'product.updated']);
  });

  it("a location-restricted key sees its locations' events only, and product payloads narrowed to them", async () => {
    const restricted = await m.key([...SCOPES], [m.locations[1]]);
    const seen = await follow(restricted);
    const expected = feed.filter((e) => e.location_id === null || e.location_id === m.locations[1]);
    expect(seen.map((e) => e.id)).toEqual(expected.map((e) => e.id));
    const updated = seen.find((e) => e.type === 'product.updated')!;
    const full = feed.find((e) => e.type === 'product.updated')!;
    expect(full.data.object.variants![0].inventory.map((i) => i.fulfillment_location_id).sort()).toEqual([...m.locations].sort());
    expect(updated.data.object.variants![0].inventory.map((i) => i.fulfillment_location_id)).toEqual([m.locations[1]]);
    const hidden = feed.find((e) => e.location_id === m.locations[0])!;
    expect(json(await t.api(restricted, 'GET', `/events/${hidden.id}`), 404, 'getEvent').code).toBe('not_found');
    expect(json(await t.api(restricted, 'GET', `/events/${updated.id}`), 200, 'getEvent').data).toEqual(updated);
    expect(JSON.stringify(seen)).not.toContain(m.locations[0]);
  });
});

describe('retention', () => {
  it('a purged position behind an older event still kept (a delivery keeps it) answers 410, not 422 unknown_id', async () => {
    const r = await t.merchant({ locations: 1 });
    const key = await r.key([...SCOPES]);
    const q = await makeProduct(t, r, 'Kept', [{ sku: 'KEPT-1', price: 1 }]);
    for (const n of [1, 2]) await adjust(key, q.variants[0].id, r.locations[0], n);
    const events = await follow(key);
    const db = t.database.db;
    // All 40 days old, as the merchant; the purge took the last two and kept the first, as it keeps
    // an event a kept delivery references (a resend, or DELIVERY_RETENTION_DAYS above EVENT_RETENTION_DAYS).
    await db
      .updateTable('merchants')
      .set({ created_at: sql`clock_timestamp() - interval '40 days'` })
      .where('id', '=', r.id)
      .execute();
    await db
      .updateTable('events')
      .set({ created_at: sql`clock_timestamp() - interval '40 days'` })
      .where('merchant_id', '=', r.id)
      .execute();
    await db.deleteFrom('events').where('id', 'in', [events[1].id, events[2].id]).execute();
    for (const e of events) expect(json(await t.api(key, 'GET', `/events?after=${e.position}`), 410, 'listEvents').code).toBe('cursor_expired');
    // A position after an event within the retention is no purged one: not this merchant's, 422.
    await adjust(key, q.variants[0].id, r.locations[0], 3);
    const fresh = (await follow(key)).at(-1)!;
    const madeUp = (BigInt(`0x${fresh.position}`) + 1n).toString(16).padStart(32, '0');
    expect(json(await t.api(key, 'GET', `/events?after=${madeUp}`), 422, 'listEvents').errors?.[0].code).toBe('unknown_id');
  });

  it('expired events still stored are not served: following the feed from its start after a 410 never meets another (it looped)', async () => {
    const r = await t.merchant({ locations: 1 });
    const key = await r.key([...SCOPES]);
    const q = await makeProduct(t, r, 'Aged', [{ sku: 'AGED-1', price: 1 }]);
    for (const n of [1, 2, 3]) await adjust(key, q.variants[0].id, r.locations[0], n);
    const events = await follow(key);
    expect(events).toHaveLength(4);
    // The first two are 31 days old and not purged yet (the purge runs every 10 minutes, and keeps
    // an event a delivery still references).
    await t.database.db
      .updateTable('events')
      .set({ created_at: sql`clock_timestamp() - interval '31 days'` })
      .where('id', 'in', [events[0].id, events[1].id])
      .execute();
    expect(json(await t.api(key, 'GET', `/events?after=${events[1].position}`), 410, 'listEvents').code).toBe('cursor_expired');
    // "Follow the feed from its start", a page at a time: by after= and by cursor.
    expect((await follow(key, '', 1)).map((e) => e.id)).toEqual([events[2].id, events[3].id]);
    const first = await page(key, '?limit=1');
    expect(first.data.map((e) => e.id)).toEqual([events[2].id]);
    const second = await page(key, `?limit=1&cursor=${encodeURIComponent(first.meta.next_cursor!)}`);
    expect(second.data.map((e) => e.id)).toEqual([events[3].id]);
    // GET /events/:id still answers an expired event it keeps (a delivery names it).
    expect(json(await t.api(key, 'GET', `/events/${events[0].id}`), 200, 'getEvent').data.id).toBe(events[0].id);
  });

  it('a position older than EVENT_RETENTION_DAYS, or purged, answers 410 cursor_expired; a kept one does not', async () => {
    const r = await t.merchant({ locations: 1 });
    const key = await r.key([...SCOPES]);
    const q = await makeProduct(t, r, 'Old', [{ sku: 'OLD-1', price: 1 }]);
    for (const n of [1, 2, 3]) await adjust(key, q.variants[0].id, r.locations[0], n);
    const events = await follow(key);
    expect(events.map((e) => e.type)).toEqual(['product.created', 'inventory.updated', 'inventory.updated', 'inventory.updated']);
    const db = t.database.db;
    // 31 days old: expired, whether or not the retention job has purged it yet.
    await db
      .updateTable('events')
      .set({ created_at: sql`clock_timestamp() - interval '31 days'` })
      .where('id', 'in', [events[0].id, events[1].id])
      .execute();
    const expired = await t.api(key, 'GET', `/events?after=${events[1].position}`);
    expect(expired.statusCode).toBe(410);
    expect(expired.headers['content-type']).toContain('application/problem+json');
    expect(json(expired, 410, 'listEvents')).toMatchObject({ code: 'cursor_expired', status: 410, title: 'Cursor expired', type: '/errors#cursor_expired' });
    expect(json(expired, 410, 'listEvents').detail).toContain('30 days');
    // 29 days old: still kept.
    await db
      .updateTable('events')
      .set({ created_at: sql`clock_timestamp() - interval '29 days'` })
      .where('id', '=', events[2].id)
      .execute();
    expect((await page(key, `?after=${events[2].position}`)).data.map((e) => e.id)).toEqual([events[3].id]);
    // Purged (what the retention job does): the position is gone and behind everything kept. While
    // the merchant is younger than the retention nothing of its can have been purged, so such a
    // position is not its (another merchant's, or made up): 422. As old as its purged events, 410.
    await db.deleteFrom('events').where('id', 'in', [events[0].id, events[1].id]).execute();
    expect(json(await t.api(key, 'GET', `/events?after=${events[0].position}`), 422, 'listEvents').errors).toEqual([
      { path: '/after', message: 'no event of this merchant has this position', code: 'unknown_id' },
    ]);
    await db
      .updateTable('merchants')
      .set({ created_at: sql`clock_timestamp() - interval '31 days'` })
      .where('id', '=', r.id)
      .execute();
    expect(json(await t.api(key, 'GET', `/events?after=${events[0].position}`), 410, 'listEvents').code).toBe('cursor_expired');
    expect((await follow(key)).map((e) => e.id)).toEqual([events[2].id, events[3].id]);
    // A cursor whose position has expired is 410 too.
    const cursor = (await page(key, '?limit=1')).meta.next_cursor!;
    await db
      .updateTable('events')
      .set({ created_at: sql`clock_timestamp() - interval '31 days'` })
      .where('id', '=', events[2].id)
      .execute();
    expect(json(await t.api(key, 'GET', `/events?limit=1&cursor=${encodeURIComponent(cursor)}`), 410, 'listEvents').code).toBe('cursor_expired');
    // Another merchant's position, before all of a new merchant's events: not this merchant's, 422
    // (it was 410, sending the integrator to backfill).
    const fresh = await t.merchant({ locations: 1 });
    const freshKey = await fresh.key([...SCOPES]);
    for (const position of [events[3].position, '00000000000000000000000000000001']) {
      expect(json(await t.api(freshKey, 'GET', `/events?after=${position}`), 422, 'listEvents').errors?.[0].code).toBe('unknown_id');
    }
    const errors = await t.app.inject({ method: 'GET', url: '/errors' });
    // Framed by nobody, and nothing but its own inline style runs (it had no CSP at all).
    expect([errors.headers['content-security-policy'], errors.headers['x-frame-options']]).toEqual([
      "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
      'DENY',
    ]);
    expect(errors.body).toContain('<tr id="cursor_expired"><td><code>cursor_expired</code></td><td>410</td>');
  });
});

describe('the horizon', () => {
  it('an event is held back while its transaction is open and shows up in its place once committed', async () => {
    const db = t.database.db;
    const before = feed[feed.length - 1].position;
    let inside: string[] = [];
    const product = json(await t.api(all, 'GET', `/products/${p.id}`), 200, 'getProduct').data;
    const id = await db.transaction().execute(async (trx) => {
      const eventId = await emitEvent(trx, { merchantId: m.id, type: 'product.updated', locationId: null, object: product });
      const stored = await trx.selectFrom('events').select(['xid', 'position_xid']).where('id', '=', eventId).executeTakeFirstOrThrow();
      const { rows } = await sql<{
        xid: string;
        xmin: string;
      }>`select pg_current_xact_id()::text as xid, pg_snapshot_xmin(pg_current_snapshot())::text as xmin`.execute(trx);
      // The event records its transaction; that transaction is the horizon, so its own event is not yet in the feed.
      expect(stored.xid).toBe(rows[0].xid);
      expect(BigInt(stored.position_xid) >= BigInt(rows[0].xmin)).toBe(true);
      inside = (await selectFeedPage(trx, merchantScope(m.id), null, decodePosition(before)!, 10, 30)).map((e) => e.id);
      return eventId;
    });
    expect(inside).toEqual([]);
    await settled();
    expect((await page(all, `?after=${before}`)).data.map((e) => e.id)).toEqual([id]);
  });
});
