// Inventory rows and adjustment batches.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { countStatements, ISO_TIMESTAMP, json, startMerchantApp, untypedJson, walk, type TestApp, type TestMerchant } from '../../../test/helpers.ts';
import { requestBodySchema, type DocumentShape } from '../../../test/contract.ts';
import { events, fulfil, ledger, makeProduct, placeOrder, WAREHOUSE, syncConnectedProduct, type MadeProduct } from '../../../test/fixtures.ts';

let t: TestApp;
let m: TestMerchant;
let key: string;
let p: MadeProduct;

beforeAll(async () => {
  ({ t, m, key } = await startMerchantApp({ locations: 3, scopes: WAREHOUSE }));
  p = await makeProduct(t, m, 'Stock Tee', [
    { sku: 'INV-A', price: 1 },
    { sku: 'INV-B', price: 1 },
  ]);
});
afterAll(() => t?.close());

const adjust = (k: string, adjustments: unknown[], headers: Record<string, string> = {}) =>
  t.api(k, 'POST', '/inventory/adjustments', { adjustments }, headers);
/** A batch the API refuses as a whole: the problem (422 unless `status` says otherwise), naming the rows. */
const refusedBatch = async (k: string, adjustments: unknown[], status: 403 | 422 = 422) => json(await adjust(k, adjustments), status, 'adjustInventory');
const rowsOf = async (variantId: string) => json(await t.api(key, 'GET', `/inventory?variant_id=${variantId}`), 200, 'listInventory').data;

describe('POST /inventory/adjustments', () => {
  it('applies rows by variant_id and by SKU, answers the resulting rows in request order, ledgers and emits once per row', async () => {
    const [a, b] = p.variants.map((v) => v.id);
    const res = await adjust(key, [
      { variant_id: a, fulfillment_location_id: m.locations[0], adjustment: 10, reason: 'receiving' },
      { sku: 'INV-B', fulfillment_location_id: m.locations[1], adjustment: 4 },
      { sku: 'INV-A', fulfillment_location_id: m.locations[0], adjustment: -3, reason: 'damaged' },
    ]);
    const body = json(res, 200, 'adjustInventory');
    expect(Object.keys(body).sort()).toEqual(['data', 'request_id']);
    /** The row of a variant (A or B) at a location, as the API answers it: nothing committed. */
    const row = (variant: 'A' | 'B', location: string, onHand: number) => ({
      id: expect.any(String),
      variant_id: variant === 'A' ? a : b,
      product_id: p.id,
      sku: `INV-${variant}`,
      fulfillment_location_id: location,
      on_hand: onHand,
      committed: 0,
      available: onHand,
      updated_at: expect.stringMatching(ISO_TIMESTAMP),
    });
    const rowA = row('A', m.locations[0], 7);
    const rowB = row('B', m.locations[1], 4);
    expect(body.data).toEqual([rowA, rowB, rowA]);
    expect(body.data[0]).toEqual(body.data[2]);
    expect(await rowsOf(a)).toEqual([body.data[0]]);

    const apiKeyId = (await t.database.db.selectFrom('inventory_ledger').select('api_key_id').where('variant_id', '=', a).executeTakeFirstOrThrow()).api_key_id;
    expect(await ledger(t, a)).toEqual([
      {
        location_id: m.locations[0],
        on_hand_delta: 10,
        committed_delta: 0,
        cause: 'adjustment',
        reference_id: null,
        reason: 'receiving',
        api_key_id: apiKeyId,
      },
      { location_id: m.locations[0], on_hand_delta: -3, committed_delta: 0, cause: 'adjustment', reference_id: null, reason: 'damaged', api_key_id: apiKeyId },
    ]);
    const evs = await events(t, m.id, 'inventory.updated');
    expect(evs.map((e) => [e.location_id, e.payload.object]).sort()).toEqual(
      [
        [m.locations[0], body.data[0]],
        [m.locations[1], body.data[1]],
      ].sort(),
    );
  });

  it('a row that would leave on_hand negative fails the whole batch, naming the row', async () => {
    const [a, b] = p.variants.map((v) => v.id);
    const before = [await rowsOf(a), await rowsOf(b)];
    const ledgerBefore = (await ledger(t, a)).length;
    const res = await refusedBatch(key, [
      { variant_id: b, fulfillment_location_id: m.locations[1], adjustment: 100 },
      { variant_id: a, fulfillment_location_id: m.locations[0], adjustment: -8 },
    ]);
    expect(res.code).toBe('validation_failed');
    expect(res.errors).toEqual([{ path: '/adjustments/1/adjustment', message: 'would leave on_hand at -1', code: 'negative_on_hand' }]);
    expect([await rowsOf(a), await rowsOf(b)]).toEqual(before);
    expect((await ledger(t, a)).length).toBe(ledgerBefore);
  });

  it('on_hand stays within 1,000,000,000: a batch beyond it is 422 naming the row, never an integer overflow', async () => {
    const [variant] = (await makeProduct(t, m, 'Bulk', [{ sku: 'INV-BULK', price: 1 }])).variants.map((v) => v.id);
    const row = { variant_id: variant, fulfillment_location_id: m.locations[0], adjustment: 1_000_000 };
    for (let i = 0; i < 10; i++)
      json(
        await adjust(
          key,
          Array.from({ length: 100 }, () => row),
        ),
        200,
        'adjustInventory',
      );
    expect((await rowsOf(variant)).map((r) => r.on_hand)).toEqual([1_000_000_000]);
    expect((await refusedBatch(key, [{ ...row, adjustment: 1 }])).errors).toEqual([
      { path: '/adjustments/0/adjustment', message: 'would leave on_hand at 1000000001, above 1000000000', code: 'out_of_range' },
    ]);
    // A row stored above the bound before it existed: a batch that would pass int's maximum is refused by
    // name too (PostgreSQL's "integer out of range" was a 500), and one that lowers it is applied.
    await sql`update inventory_levels set on_hand = 2147483000 where variant_id = ${variant}`.execute(t.database.db);
    expect((await refusedBatch(key, [row])).errors).toMatchObject([{ path: '/adjustments/0/adjustment', code: 'out_of_range' }]);
    json(await adjust(key, [{ ...row, adjustment: -1000 }]), 200, 'adjustInventory');
    expect((await rowsOf(variant)).map((r) => r.on_hand)).toEqual([2147482000]);
  });

  it('stock received while on_hand is below 0 is taken; only a row that makes on_hand negative is refused (+3 on -8 was refused)', async () => {
    const [v] = (await makeProduct(t, m, 'Backorder', [{ sku: 'INV-BACK', price: 1, inventory_policy: 'continue' }])).variants.map((x) => x.id);
    const at = m.locations[2];
    // A continue-policy variant shipped without stock: on_hand goes below 0 (docs/warehouse.md).
    json(await fulfil(t, key, await placeOrder(m, at, [{ variant_id: v, quantity: 8 }]), [8]), 201, 'createFulfillment');
    expect((await rowsOf(v)).map((r) => [r.on_hand, r.committed, r.available])).toEqual([[-8, 0, -8]]);
    const row = (adjustment: number) => ({ variant_id: v, fulfillment_location_id: at, adjustment, reason: 'received' });
    expect(json(await adjust(key, [row(3), row(4)]), 200, 'adjustInventory').data.map((r) => r.on_hand)).toEqual([-1, -1]);
    expect((await refusedBatch(key, [row(-1)])).errors).toEqual([
      { path: '/adjustments/0/adjustment', message: 'would leave on_hand at -2', code: 'negative_on_hand' },
    ]);
    expect((await refusedBatch(key, [row(2), row(-2)])).errors).toEqual([
      { path: '/adjustments/1/adjustment', message: 'would leave on_hand at -1', code: 'negative_on_hand' },
    ]);
    expect(json(await adjust(key, [row(1)]), 200, 'adjustInventory').data.map((r) => r.on_hand)).toEqual([0]);
    expect((await ledger(t, v)).map((l) => l.on_hand_delta)).toEqual([0, -8, 3, 4, 1]);
  });

  it('names unknown and ambiguous SKUs, unknown variants and locations, zero deltas and missing variant references', async () => {
    const other = await t.merchant({ locations: 1 });
    const foreign = await makeProduct(t, other, 'Foreign', [{ sku: 'INV-FOREIGN', price: 1 }]);
    // Connected data may repeat a SKU: the SKU becomes ambiguous.
    await syncConnectedProduct(m, 'Connected twin', [{ sku: 'INV-B', price: 1 }]);
    const res = await refusedBatch(key, [
      { sku: 'INV-NOPE', fulfillment_location_id: m.locations[0], adjustment: 1 },
      { sku: 'INV-B', fulfillment_location_id: m.locations[0], adjustment: 1 },
      { variant_id: foreign.variants[0].id, fulfillment_location_id: m.locations[0], adjustment: 1 },
      { sku: 'INV-FOREIGN', fulfillment_location_id: m.locations[0], adjustment: 1 },
      { variant_id: p.variants[0].id, fulfillment_location_id: other.locations[0], adjustment: 1 },
      { variant_id: p.variants[0].id, fulfillment_location_id: m.locations[0], adjustment: 0 },
      { fulfillment_location_id: m.locations[0], adjustment: 1 },
      { variant_id: p.variants[0].id, sku: 'INV-B', fulfillment_location_id: m.locations[0], adjustment: 1 },
      { variant_id: p.variants[0].id, fulfillment_location_id: m.locations[0], adjustment: 5 },
    ]);
    expect(res.errors).toEqual([
      { path: '/adjustments/0/sku', message: 'matches no variant of this merchant', code: 'unknown_sku' },
      { path: '/adjustments/1/sku', message: 'matches 2 variants; send variant_id', code: 'ambiguous_sku' },
      { path: '/adjustments/2/variant_id', message: 'is not a variant of this merchant', code: 'unknown_id' },
      { path: '/adjustments/3/sku', message: 'matches no variant of this merchant', code: 'unknown_sku' },
      { path: '/adjustments/4/fulfillment_location_id', message: 'is not a location of this merchant', code: 'unknown_id' },
      { path: '/adjustments/5/adjustment', message: 'must not be 0', code: 'out_of_range' },
      { path: '/adjustments/6/variant_id', message: 'variant_id or sku is required', code: 'required' },
      { path: '/adjustments/7/sku', message: 'does not match the variant', code: 'mismatch' },
    ]);
    expect((await rowsOf(p.variants[0].id))[0].on_hand).toBe(7);

    const schema = await refusedBatch(key, [{ variant_id: 'x', fulfillment_location_id: m.locations[0], adjustment: 1.5, colour: 'red' }]);
    expect(schema.errors?.map((e: { path: string }) => e.path).sort()).toEqual([
      '/adjustments/0/adjustment',
      '/adjustments/0/colour',
      '/adjustments/0/variant_id',
    ]);
    expect(json(await adjust(key, []), 422, 'adjustInventory').errors?.[0].path).toBe('/adjustments');
    const many = Array.from({ length: 101 }, () => ({ variant_id: p.variants[0].id, fulfillment_location_id: m.locations[0], adjustment: 1 }));
    expect(json(await adjust(key, many), 422, 'adjustInventory').errors?.[0].path).toBe('/adjustments');
  });

  it('one answer names every error: what rows name and the stock the rows that resolve would leave', async () => {
    const [a] = p.variants.map((v) => v.id);
    const onHand = (await rowsOf(a)).find((r) => r.fulfillment_location_id === m.locations[0])!.on_hand;
    const ledgerBefore = (await ledger(t, a)).length;
    const res = await refusedBatch(key, [
      { sku: 'INV-NOPE', fulfillment_location_id: m.locations[0], adjustment: 1 },
      { variant_id: a, fulfillment_location_id: m.locations[0], adjustment: -onHand },
      { variant_id: a, fulfillment_location_id: m.locations[0], adjustment: -2 },
      { variant_id: a, fulfillment_location_id: m.locations[0], adjustment: 0 },
    ]);
    expect(res.errors).toEqual([
      { path: '/adjustments/0/sku', message: 'matches no variant of this merchant', code: 'unknown_sku' },
      { path: '/adjustments/2/adjustment', message: 'would leave on_hand at -2', code: 'negative_on_hand' },
      // A row of 0 moves nothing: it does not make on_hand negative (it is refused as 0 only).
      { path: '/adjustments/3/adjustment', message: 'must not be 0', code: 'out_of_range' },
    ]);
    expect((await rowsOf(a)).find((r) => r.fulfillment_location_id === m.locations[0])!.on_hand).toBe(onHand);
    expect((await ledger(t, a)).length).toBe(ledgerBefore);
  });

  it('the document states "variant_id or sku" in words, a plain object for generators; the service answers it with its own field error', async () => {
    const doc = untypedJson<DocumentShape>(await t.app.inject({ method: 'GET', url: '/api/integrations/v1/openapi.json' }), 200);
    // A named component, so a generated client has a type for the row it builds.
    expect(requestBodySchema(doc, '/api/integrations/v1/inventory/adjustments', 'post').properties.adjustments.items).toEqual({
      $ref: '#/components/schemas/InventoryAdjustment',
    });
    const row = doc.components.schemas.InventoryAdjustment;
    expect([row.allOf, row.anyOf, row.oneOf, row.required]).toEqual([undefined, undefined, undefined, ['fulfillment_location_id', 'adjustment']]);
    expect(row.description).toBe("Give `variant_id` or `sku` (with both, the SKU must be the variant's): 422 `required` at `variant_id` otherwise.");
    const res = await refusedBatch(key, [
      { fulfillment_location_id: m.locations[0], adjustment: 1 },
      { fulfillment_location_id: m.locations[0], adjustment: 0 },
    ]);
    expect(res.errors).toEqual([
      { path: '/adjustments/0/variant_id', message: 'variant_id or sku is required', code: 'required' },
      { path: '/adjustments/1/variant_id', message: 'variant_id or sku is required', code: 'required' },
      { path: '/adjustments/1/adjustment', message: 'must not be 0', code: 'out_of_range' },
    ]);
  });

  it('a location outside a restricted key refuses the whole batch with 403; an unknown location is still 422', async () => {
    const restricted = await m.key(WAREHOUSE, [m.locations[0]]);
    const res = await refusedBatch(
      restricted,
      [
        { variant_id: p.variants[0].id, fulfillment_location_id: m.locations[0], adjustment: 1 },
        { variant_id: p.variants[0].id, fulfillment_location_id: m.locations[2], adjustment: 1 },
      ],
      403,
    );
    expect(res.code).toBe('location_forbidden');
    expect(res.detail).toBe('/adjustments/1/fulfillment_location_id: this API key is restricted to other fulfillment locations.');
    expect(res.errors).toEqual([
      { path: '/adjustments/1/fulfillment_location_id', message: 'is outside the locations of this API key', code: 'location_forbidden' },
    ]);
    expect((await rowsOf(p.variants[0].id))[0].on_hand).toBe(7);
    const other = await t.merchant({ locations: 1 });
    const unknown = await refusedBatch(restricted, [{ variant_id: p.variants[0].id, fulfillment_location_id: other.locations[0], adjustment: 1 }]);
    expect(unknown.errors?.[0].path).toBe('/adjustments/0/fulfillment_location_id');
    json(await adjust(restricted, [{ variant_id: p.variants[0].id, fulfillment_location_id: m.locations[0], adjustment: 1 }]), 200, 'adjustInventory');
  });

  it('inventory.write is an alias of inventory.adjust; inventory.read alone cannot adjust', async () => {
    const write = await m.key(['inventory.write']);
    expect(
      json(await adjust(write, [{ variant_id: p.variants[1].id, fulfillment_location_id: m.locations[2], adjustment: 2 }]), 200, 'adjustInventory').data[0]
        .on_hand,
    ).toBe(2);
    const read = await m.key(['inventory.read']);
    const denied = json(await adjust(read, [{ variant_id: p.variants[1].id, fulfillment_location_id: m.locations[2], adjustment: 2 }]), 403, 'adjustInventory');
    expect(denied.code).toBe('insufficient_scope');
    expect(denied.detail).toContain('inventory.adjust');
  });

  it('replays with Idempotency-Key: applied once', async () => {
    const rows = [{ variant_id: p.variants[1].id, fulfillment_location_id: m.locations[2], adjustment: 5 }];
    const first = await adjust(key, rows, { 'idempotency-key': 'adj-1' });
    const second = await adjust(key, rows, { 'idempotency-key': 'adj-1' });
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(json(second, 200, 'adjustInventory')).toEqual(json(first, 200, 'adjustInventory'));
    expect((await rowsOf(p.variants[1].id)).find((r) => r.fulfillment_location_id === m.locations[2])?.on_hand).toBe(
      json(first, 200, 'adjustInventory').data[0].on_hand,
    );
    expect(json(await adjust(key, [{ ...rows[0], adjustment: 6 }], { 'idempotency-key': 'adj-1' }), 422, 'adjustInventory').code).toBe(
      'idempotency_key_reused',
    );
    const failed = await adjust(key, [{ ...rows[0], adjustment: -1000 }], { 'idempotency-key': 'adj-2' });
    const replayedFailure = await adjust(key, [{ ...rows[0], adjustment: -1000 }], { 'idempotency-key': 'adj-2' });
    expect(replayedFailure.statusCode).toBe(422);
    expect(json(replayedFailure, 422, 'adjustInventory')).toEqual(json(failed, 422, 'adjustInventory'));
  });
});

describe('GET /inventory', () => {
  let mm: TestMerchant;
  let k: string;
  let q: MadeProduct;
  beforeAll(async () => {
    mm = await t.merchant({ locations: 2 });
    k = await mm.key(WAREHOUSE);
    q = await makeProduct(t, mm, 'Filter', [
      { sku: 'INV-F1', price: 1 },
      { sku: 'INV-F2', price: 1 },
      { sku: 'INV-F3', price: 1, inventory_policy: 'continue' },
    ]);
    for (const v of q.variants)
      for (const l of mm.locations) json(await adjust(k, [{ variant_id: v.id, fulfillment_location_id: l, adjustment: 3 }]), 200, 'adjustInventory');
  });

  it('walks every row once, filters by variant, SKU, location and updated_after, with constant queries', async () => {
    const all = json(await t.api(k, 'GET', '/inventory'), 200, 'listInventory').data;
    expect(all).toHaveLength(6);
    expect((await walk(t, k, '/inventory', 4)).ids).toEqual(all.map((r: { id: string }) => r.id));
    const ids = (rows: { id: string }[]) => rows.map((r) => r.id);
    expect(ids(json(await t.api(k, 'GET', `/inventory?variant_id=${q.variants[1].id}`), 200, 'listInventory').data)).toEqual(
      ids(all.filter((r: { variant_id: string }) => r.variant_id === q.variants[1].id)),
    );
    expect(ids(json(await t.api(k, 'GET', '/inventory?sku=INV-F3'), 200, 'listInventory').data)).toEqual(ids(all.filter((r) => r.sku === 'INV-F3')));
    expect(ids(json(await t.api(k, 'GET', `/inventory?location_id=${mm.locations[1]}&sku=INV-F1`), 200, 'listInventory').data)).toEqual(
      ids(all.filter((r) => r.sku === 'INV-F1' && r.fulfillment_location_id === mm.locations[1])),
    );
    expect(ids(json(await t.api(k, 'GET', `/inventory?updated_after=${all[3].updated_at}`), 200, 'listInventory').data)).toEqual(
      ids(all.filter((r: { updated_at: string }) => r.updated_at > all[3].updated_at)),
    );
    expect(json(await t.api(k, 'GET', '/inventory?sku=NOPE'), 200, 'listInventory').data).toEqual([]);
    expect(json(await t.api(k, 'GET', '/inventory?variant_id=00000000-0000-4000-8000-000000000000'), 200, 'listInventory').data).toEqual([]);
    expect(json(await t.api(k, 'GET', '/inventory?warehouse=1'), 422, 'listInventory').errors?.[0].path).toBe('/warehouse');

    const page = (limit: number) => countStatements(async () => json(await t.api(k, 'GET', `/inventory?limit=${limit}`), 200, 'listInventory'));
    const few = await page(1);
    expect(await page(6)).toBe(few);
  });

  it("a variant's new SKU changes its inventory rows: updated_after finds them and inventory.updated carries the SKU", async () => {
    const own = await t.merchant({ locations: 2 });
    const reader = await own.key(WAREHOUSE);
    const writer = await own.key(['products.write', 'products.read']);
    const r = await makeProduct(t, own, 'Renamed', [
      { sku: 'INV-RN-1', price: 1 },
      { sku: 'INV-RN-2', price: 1 },
    ]);
    for (const v of r.variants)
      for (const l of own.locations) json(await adjust(reader, [{ variant_id: v.id, fulfillment_location_id: l, adjustment: 2 }]), 200, 'adjustInventory');
    const before = json(await t.api(reader, 'GET', '/inventory'), 200, 'listInventory').data;
    const since = before[before.length - 1].updated_at;
    // The feed shows an event once every transaction of the server older than it has ended (the
    // horizon is cluster-wide: other test files' transactions hold it back for a moment).
    const settled = () =>
      expect
        .poll(
          async () =>
            (
              await sql<{ ok: boolean }>`select coalesce((select max(position_xid) from events) < pg_snapshot_xmin(pg_current_snapshot()), true) as ok`.execute(
                t.database.db,
              )
            ).rows[0].ok,
          { timeout: 30_000, interval: 50 },
        )
        .toBe(true);
    const feed = async () => (await settled(), json(await t.api(reader, 'GET', '/events?types=inventory.updated&limit=250'), 200, 'listEvents').data);
    const eventsBefore = (await feed()).length;

    json(
      await t.api(writer, 'PATCH', `/products/${r.id}`, { variants: [{ id: r.variants[0].id, sku: 'INV-RN-1-NEW' }, { id: r.variants[1].id }] }),
      200,
      'updateProduct',
    );
    // By location: rows touched in one statement may list in either order (updated_at, id).
    const byLocation = <R extends { fulfillment_location_id: string }>(rows: R[]) =>
      [...rows].sort((a, b) => a.fulfillment_location_id.localeCompare(b.fulfillment_location_id));
    const changed = byLocation(json(await t.api(reader, 'GET', `/inventory?updated_after=${since}`), 200, 'listInventory').data);
    expect(changed.map((row) => [row.variant_id, row.fulfillment_location_id, row.sku, row.on_hand])).toEqual(
      [...own.locations].sort().map((l) => [r.variants[0].id, l, 'INV-RN-1-NEW', 2]),
    );
    // The other variant kept its SKU: its rows did not change.
    expect(json(await t.api(reader, 'GET', `/inventory?variant_id=${r.variants[1].id}`), 200, 'listInventory').data).toEqual(
      before.filter((row) => row.variant_id === r.variants[1].id),
    );
    const emitted = (await feed()).slice(eventsBefore);
    expect(byLocation(emitted.map((e) => e.data.object as (typeof changed)[number]))).toEqual(changed);
  });

  it('an order commits stock and a changed row moves to the end of the list', async () => {
    const order = await placeOrder(mm, mm.locations[0], [{ variant_id: q.variants[0].id, quantity: 2 }]);
    const all = json(await t.api(k, 'GET', '/inventory'), 200, 'listInventory').data;
    expect(all[all.length - 1]).toMatchObject({
      variant_id: q.variants[0].id,
      fulfillment_location_id: mm.locations[0],
      on_hand: 3,
      committed: 2,
      available: 1,
    });
    expect(order.status).toBe('open');
  });

  it('a restricted key sees only its locations; naming another location is 403, an unknown one 422', async () => {
    const restricted = await mm.key(['inventory.read'], [mm.locations[1]]);
    const all = json(await t.api(k, 'GET', '/inventory'), 200, 'listInventory').data;
    expect(json(await t.api(restricted, 'GET', '/inventory'), 200, 'listInventory').data).toEqual(
      all.filter((r: { fulfillment_location_id: string }) => r.fulfillment_location_id === mm.locations[1]),
    );
    const forbidden = json(await t.api(restricted, 'GET', `/inventory?location_id=${mm.locations[0]}`), 403, 'listInventory');
    expect(forbidden.code).toBe('location_forbidden');
    const other = await t.merchant({ locations: 1 });
    const unknown = json(await t.api(restricted, 'GET', `/inventory?location_id=${other.locations[0]}`), 422, 'listInventory');
    expect(unknown.errors).toEqual([{ path: '/location_id', message: 'is not a location of this merchant', code: 'unknown_id' }]);
    expect(json(await t.api(k, 'GET', `/inventory?location_id=${other.locations[0]}`), 422, 'listInventory').code).toBe('validation_failed');
  });

  it("reads a row by id as the list shows it; a row at a location outside the key's, another merchant's or an unknown id is 404", async () => {
    const all = json(await t.api(k, 'GET', '/inventory'), 200, 'listInventory').data;
    const at = (location: string) => all.find((r: { fulfillment_location_id: string }) => r.fulfillment_location_id === location)!;
    for (const row of [at(mm.locations[0]), at(mm.locations[1])]) {
      expect(json(await t.api(k, 'GET', `/inventory/${row.id}`), 200, 'getInventoryRow').data).toEqual(row);
    }
    const restricted = await mm.key(['inventory.read'], [mm.locations[1]]);
    expect(json(await t.api(restricted, 'GET', `/inventory/${at(mm.locations[1]).id}`), 200, 'getInventoryRow').data).toEqual(at(mm.locations[1]));
    expect(json(await t.api(restricted, 'GET', `/inventory/${at(mm.locations[0]).id}`), 404, 'getInventoryRow').code).toBe('not_found');
    const stranger = await (await t.merchant({ locations: 1 })).key(['inventory.read']);
    expect(json(await t.api(stranger, 'GET', `/inventory/${at(mm.locations[0]).id}`), 404, 'getInventoryRow').code).toBe('not_found');
    expect(json(await t.api(k, 'GET', '/inventory/00000000-0000-4000-8000-000000000000'), 404, 'getInventoryRow').code).toBe('not_found');
    const unscoped = await mm.key(['orders.read']);
    expect(json(await t.api(unscoped, 'GET', `/inventory/${at(mm.locations[0]).id}`), 403, 'getInventoryRow').code).toBe('insufficient_scope');
  });
});
