// Real concurrency against PostgreSQL (a pool of 20 connections behind parallel app.inject calls):
// atomic stock updates, Idempotency-Key under parallel duplicates, races for the last unit.
import { spawn, type ChildProcess } from 'node:child_process';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, onPostgres, OPERATOR_TOKEN, startMerchantApp, startTestApp, type TestApp, type TestMerchant } from './helpers.ts';
import { addStock, fulfil, makeProduct, placeOrder, WAREHOUSE, type MadeProduct } from './fixtures.ts';
import { waitFor } from './wait.ts';

describe.runIf(onPostgres())('concurrency on PostgreSQL', () => {
  let t: TestApp;
  let m: TestMerchant;
  let key: string;
  let p: MadeProduct;

  beforeAll(async () => {
    ({ t, m, key } = await startMerchantApp({ locations: 1, scopes: WAREHOUSE }));
    p = await makeProduct(t, m, 'Race', [
      { sku: 'CON-A', price: 2 },
      { sku: 'CON-B', price: 3 },
    ]);
  });
  afterAll(() => t?.close());

  /** Runs `body` while a connection of its own holds, in an open transaction, what `sql` locks. */
  const holding = async (sql: string, params: unknown[], body: (client: pg.Client) => Promise<void>) => {
    const client = new pg.Client({ connectionString: t.database.url! });
    await client.connect();
    try {
      await client.query('begin');
      await client.query(sql, params);
      await body(client);
    } finally {
      await client.end();
    }
  };

  /**
   * Sessions of this database waiting on a lock. Asked inside the holder's open transaction, whose
   * statistics snapshot would otherwise answer the first count for ever (PostgreSQL 15 keeps
   * pg_stat_activity as first read until the transaction ends).
   */
  const lockWaiters = async (client: pg.Client) => {
    await client.query('select pg_stat_clear_snapshot()');
    return (
      await client.query<{ n: number }>("select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and datname = current_database()")
    ).rows[0].n;
  };

  const onHand = async (variantId: string) => json(await t.api(key, 'GET', `/inventory?variant_id=${variantId}`), 200, 'listInventory').data[0];

  it('50 parallel +1 adjustments on one row sum to exactly 50', async () => {
    t.inFlight.reset();
    const res = await Promise.all(
      Array.from({ length: 50 }, () =>
        t.api(key, 'POST', '/inventory/adjustments', {
          adjustments: [{ variant_id: p.variants[0].id, fulfillment_location_id: m.locations[0], adjustment: 1 }],
        }),
      ),
    );
    expect(res.map((r) => r.statusCode)).toEqual(Array(50).fill(200));
    expect(t.inFlight.peak, 'the adjustments overlapped').toBeGreaterThanOrEqual(2);
    expect(await onHand(p.variants[0].id)).toMatchObject({ on_hand: 50, committed: 0 });
    const ledger = await t.database.db
      .selectFrom('inventory_ledger')
      .select(({ fn }) => fn.sum<string>('on_hand_delta').as('s'))
      .where('variant_id', '=', p.variants[0].id)
      .executeTakeFirstOrThrow();
    expect(Number(ledger.s)).toBe(50);
  });

  it('parallel batches touching the same rows in opposite orders neither deadlock nor lose updates', async () => {
    const [a, b] = p.variants.map((v) => v.id);
    await addStock(t, key, b, m.locations[0], 100);
    const before = [(await onHand(a)).on_hand, (await onHand(b)).on_hand];
    const rows = (first: string, second: string) => ({
      adjustments: [
        { variant_id: first, fulfillment_location_id: m.locations[0], adjustment: 1 },
        { variant_id: second, fulfillment_location_id: m.locations[0], adjustment: 1 },
      ],
    });
    t.inFlight.reset();
    const res = await Promise.all(Array.from({ length: 20 }, (_, i) => t.api(key, 'POST', '/inventory/adjustments', i % 2 ? rows(a, b) : rows(b, a))));
    expect(res.map((r) => r.statusCode)).toEqual(Array(20).fill(200));
    expect(t.inFlight.peak, 'the batches overlapped').toBeGreaterThanOrEqual(2);
    expect([(await onHand(a)).on_hand, (await onHand(b)).on_hand]).toEqual([before[0] + 20, before[1] + 20]);
  });

  it('20 parallel identical fulfillment creates with one Idempotency-Key apply once', async () => {
    const order = await placeOrder(m, m.locations[0], [{ variant_id: p.variants[0].id, quantity: 10 }]);
    t.inFlight.reset();
    const res = await Promise.all(Array.from({ length: 20 }, () => fulfil(t, key, order, [1], { 'idempotency-key': 'race-1' })));
    expect(t.inFlight.peak, 'the duplicates overlapped').toBeGreaterThanOrEqual(2);
    const fresh = res.filter((r) => r.statusCode === 201 && !r.headers['idempotent-replayed']);
    const replays = res.filter((r) => r.statusCode === 201 && r.headers['idempotent-replayed'] === 'true');
    const inFlight = res.filter((r) => r.statusCode === 409);
    expect(fresh).toHaveLength(1);
    expect(replays.length + inFlight.length).toBe(19);
    for (const r of replays) expect(json(r, 201, 'createFulfillment')).toEqual(json(fresh[0], 201, 'createFulfillment'));
    for (const r of inFlight) {
      expect(json(r, 409, 'createFulfillment').code).toBe('idempotency_in_progress');
      expect(r.headers['retry-after']).toBe('1');
    }
    const o = json(await t.api(key, 'GET', `/orders/${order.id}`), 200, 'getOrder').data;
    expect(o.fulfillment_summary).toEqual({ fulfilled_quantity: 1, total_quantity: 10, fulfillment_ids: [json(fresh[0], 201, 'createFulfillment').data.id] });
  });

  it('two fulfillments racing for the last fulfillable unit of an item: one 201, one 422', async () => {
    const order = await placeOrder(m, m.locations[0], [
      { variant_id: p.variants[0].id, quantity: 2 },
      { variant_id: p.variants[1].id, quantity: 1 },
    ]);
    json(await fulfil(t, key, order, [1, 0]), 201, 'createFulfillment');
    const before = await onHand(p.variants[0].id);
    t.inFlight.reset();
    const res = await Promise.all([fulfil(t, key, order, [1, 0]), fulfil(t, key, order, [1, 0])]);
    expect(t.inFlight.peak, 'both requests were in flight at once').toBeGreaterThanOrEqual(2);
    expect(res.map((r) => r.statusCode).sort()).toEqual([201, 422]);
    const loser = json(
      res.find((r) => r.statusCode === 422)!,
      422,
      'createFulfillment',
    );
    expect(loser.errors).toEqual([{ path: '/items/0/quantity', message: 'exceeds the fulfillable quantity (0)', code: 'exceeds_fulfillable' }]);
    const o = json(await t.api(key, 'GET', `/orders/${order.id}`), 200, 'getOrder').data;
    expect([o.status, o.fulfillment_status, o.fulfillment_summary.fulfilled_quantity]).toEqual(['open', 'partially_fulfilled', 2]);
    expect(await onHand(p.variants[0].id)).toMatchObject({ on_hand: before.on_hand - 1, committed: before.committed - 1 });
  });

  it('two fulfillments racing for the last unit of the whole order: one 201, one 422; a later request gets 409', async () => {
    const order = await placeOrder(m, m.locations[0], [{ variant_id: p.variants[0].id, quantity: 1 }]);
    // Hold the order row so both requests are surely in flight (arrived while open) before either applies.
    await holding('select id from orders where id = $1 for update', [order.id], async (client) => {
      const racing = Promise.all([fulfil(t, key, order, [1]), fulfil(t, key, order, [1])]);
      // The race happened only if both are waiting on the held row at once: fail, not carry on, if not.
      const waiting = () => lockWaiters(client);
      await waitFor(async () => (await waiting()) >= 2, { deadlineMs: 10_000, what: 'both fulfillments waiting on the held order row', describe: waiting });
      await client.query('commit');
      const res = await racing;
      expect(res.map((r) => r.statusCode).sort()).toEqual([201, 422]);
      expect(
        json(
          res.find((r) => r.statusCode === 422)!,
          422,
          'createFulfillment',
        ).errors,
      ).toEqual([{ path: '/items/0/quantity', message: 'exceeds the fulfillable quantity (0)', code: 'exceeds_fulfillable' }]);
    });
    const o = json(await t.api(key, 'GET', `/orders/${order.id}`), 200, 'getOrder').data;
    expect([o.status, o.fulfillment_summary.fulfillment_ids.length]).toEqual(['closed', 1]);
    expect(json(await fulfil(t, key, order, [1]), 409, 'createFulfillment').code).toBe('invalid_state');
  });

  it('parallel intakes get distinct consecutive numbers and never oversell a deny-policy variant', async () => {
    const q = await makeProduct(t, m, 'Scarce', [{ sku: 'CON-SCARCE', price: 5 }]);
    await addStock(t, key, q.variants[0].id, m.locations[0], 5);
    t.inFlight.reset();
    const res = await Promise.all(
      Array.from({ length: 12 }, () =>
        m.op('POST', '/orders', { fulfillment_location_id: m.locations[0], line_items: [{ variant_id: q.variants[0].id, quantity: 1 }] }),
      ),
    );
    expect(t.inFlight.peak, 'the intakes overlapped').toBeGreaterThanOrEqual(2);
    const ok = res.filter((r) => r.statusCode === 201).map((r) => json(r, 201, 'createOrder').data.order_number as number);
    expect(ok).toHaveLength(5);
    expect(res.filter((r) => r.statusCode === 422).map((r) => json(r, 422, 'createOrder').code)).toEqual(Array(7).fill('insufficient_inventory'));
    expect(new Set(ok).size).toBe(5);
    expect(await onHand(q.variants[0].id)).toMatchObject({ on_hand: 5, committed: 5, available: 0 });
  });

  it('stock writes racing the removal of their variant answer as if they came after it, never a 500', async () => {
    const q = await makeProduct(t, m, 'Going', [
      { sku: 'CON-GOING', price: 1 },
      { sku: 'CON-STAYING', price: 1 },
    ]);
    const [going, staying] = q.variants;
    await addStock(t, key, going.id, m.locations[0], 5);
    await addStock(t, key, staying.id, m.locations[0], 5);
    const toFulfil = await placeOrder(m, m.locations[0], [
      { variant_id: going.id, quantity: 1 },
      { variant_id: staying.id, quantity: 1 },
    ]);
    const toCancel = await placeOrder(m, m.locations[0], [
      { variant_id: going.id, quantity: 1 },
      { variant_id: staying.id, quantity: 1 },
    ]);
    // A product PATCH removing the variant, held open: each write has checked nothing yet, or has
    // checked the variant and waits to move its stock. Committed, the variant and its rows are gone.
    await holding('delete from variants where id = $1', [going.id], async (client) => {
      const racing = Promise.all([
        t.api(key, 'POST', '/inventory/adjustments', { adjustments: [{ variant_id: going.id, fulfillment_location_id: m.locations[0], adjustment: 1 }] }),
        fulfil(t, key, toFulfil, [1, 1]),
        m.op('POST', `/orders/${toCancel.id}/cancel`, {}),
        m.op('POST', '/orders', { fulfillment_location_id: m.locations[0], line_items: [{ variant_id: going.id, quantity: 1 }] }),
      ]);
      const waiting = () => lockWaiters(client);
      await waitFor(async () => (await waiting()) >= 4, { deadlineMs: 10_000, what: 'the four writes waiting on the removed variant', describe: waiting });
      await client.query('commit');
      const [adjusted, fulfilled, cancelled, placed] = await racing;
      expect(json(adjusted, 422, 'adjustInventory').errors).toEqual([
        { path: '/adjustments/0/variant_id', message: 'is not a variant of this merchant', code: 'unknown_id' },
      ]);
      expect(json(placed, 422, 'createOrder').errors).toEqual([
        { path: '/line_items/0/variant_id', message: 'is not a variant of this merchant', code: 'unknown_id' },
      ]);
      // The removed variant's lines move no stock; the other's do, as when the removal came first.
      expect(json(fulfilled, 201, 'createFulfillment').data.items.map((l) => l.quantity)).toEqual([1, 1]);
      expect(json(cancelled, 200, 'cancelOrder').data.status).toBe('cancelled');
    });
    // Ordered twice (2 committed), one fulfilled (on hand 4), the other cancelled (released).
    expect(await onHand(staying.id)).toMatchObject({ on_hand: 4, committed: 0 });
    expect(json(await t.api(key, 'GET', `/inventory?variant_id=${going.id}`), 200, 'listInventory').data).toEqual([]);
  });

  it('tracking attached while the order is cancelled stays shipped with its units out (the cancel cancelled it and put them back on hand)', async () => {
    const q = await makeProduct(t, m, 'Tracked race', [{ sku: 'CON-TRACKED', price: 1 }]);
    const v = q.variants[0].id;
    await addStock(t, key, v, m.locations[0], 10);
    const order = await placeOrder(m, m.locations[0], [{ variant_id: v, quantity: 3 }]);
    const f = json(await fulfil(t, key, order, [2]), 201, 'createFulfillment').data;
    // Tracking being attached (the row as attachTracking writes it), held open while the cancel
    // arrives: the cancel has locked the order and waits on the fulfillment.
    await holding("update fulfillments set status = 'shipped', tracking_number = 'TN-RACE' where id = $1", [f.id], async (client) => {
      const cancel = m.op('POST', `/orders/${order.id}/cancel`, {});
      const waiting = () => lockWaiters(client);
      await waitFor(async () => (await waiting()) >= 1, { deadlineMs: 10_000, what: 'the cancel waiting on the fulfillment', describe: waiting });
      await client.query('commit');
      const cancelled = json(await cancel, 200, 'cancelOrder').data;
      expect([cancelled.status, cancelled.fulfillment_status, cancelled.line_items.map((l) => l.fulfilled_quantity)]).toEqual([
        'cancelled',
        'partially_fulfilled',
        [2],
      ]);
    });
    const shipped = json(await t.api(key, 'GET', `/fulfillments/${f.id}`), 200, 'getFulfillment').data;
    expect([shipped.status, shipped.tracking?.tracking_number]).toEqual(['shipped', 'TN-RACE']);
    // 2 shipped stay out of on_hand; the 1 unfulfilled is released.
    expect(await onHand(v)).toMatchObject({ on_hand: 8, committed: 0 });
  });

  it('a SKU rename locks its inventory rows in the order stock writes do: no deadlock (it locked them in table order, a 500)', async () => {
    const many = await t.merchant({ locations: 6 });
    const manyKey = await many.key([...WAREHOUSE, 'products.write']);
    const q = json(await t.api(manyKey, 'POST', '/products', { title: 'Renamed', variants: [{ sku: 'CON-REN-0', price: 1 }] }), 201, 'createProduct').data;
    const v = q.variants[0].id;
    // Rows made one batch at a time in descending location order: the table holds them that way.
    const locations = [...many.locations].sort().reverse();
    for (const l of locations) {
      json(
        await t.api(manyKey, 'POST', '/inventory/adjustments', { adjustments: [{ variant_id: v, fulfillment_location_id: l, adjustment: 5 }] }),
        200,
        'adjustInventory',
      );
    }
    const rowAt = async (l: string) =>
      (await t.database.db.selectFrom('inventory_levels').select('id').where('variant_id', '=', v).where('location_id', '=', l).executeTakeFirstOrThrow()).id;
    const [first, second] = [await rowAt(locations[5]), await rowAt(locations[4])];
    // A stock write holding the first row in (variant, location) order, as a batch over all six has it
    // while it goes on to the next: the rename waits for it, holding none of the others.
    await holding('select 1 from inventory_levels where id = $1 for update', [first], async (client) => {
      const rename = t.api(manyKey, 'PATCH', `/products/${q.id}`, { variants: [{ id: v, sku: 'CON-REN-1' }] });
      const waiting = () => lockWaiters(client);
      await waitFor(async () => (await waiting()) >= 1, { deadlineMs: 10_000, what: 'the rename waiting on the first row', describe: waiting });
      await client.query('update inventory_levels set on_hand = on_hand where id = $1', [second]);
      await client.query('commit');
      expect(json(await rename, 200, 'updateProduct').data.variants.map((x) => x.sku)).toEqual(['CON-REN-1']);
    });
    const rows = json(await t.api(manyKey, 'GET', `/inventory?variant_id=${v}`), 200, 'listInventory').data;
    expect(rows.map((r) => [r.sku, r.on_hand])).toEqual(Array.from({ length: 6 }, () => ['CON-REN-1', 5]));
  });

  it('a PATCH taking a SKU that a concurrent write takes first is 422 taken, not 500', async () => {
    const one = await makeProduct(t, m, 'Sku one', [{ sku: 'CON-SKU-1', price: 1 }]);
    const two = await makeProduct(t, m, 'Sku two', [{ sku: 'CON-SKU-2', price: 1 }]);
    const writeKey = await m.key(['products.write', 'products.read']);
    // The other write holds the SKU uncommitted: the PATCH's check finds it free, its write waits.
    await holding("update variants set sku = 'CON-SKU-NEW' where id = $1", [two.variants[0].id], async (client) => {
      const patch = t.api(writeKey, 'PATCH', `/products/${one.id}`, { variants: [{ id: one.variants[0].id, sku: 'CON-SKU-NEW' }] });
      const waiting = () => lockWaiters(client);
      await waitFor(async () => (await waiting()) >= 1, { deadlineMs: 10_000, what: 'the PATCH waiting on the held SKU', describe: waiting });
      await client.query('commit');
      expect(json(await patch, 422, 'updateProduct').errors).toEqual([
        { path: '/variants', message: 'a SKU is already used by another variant', code: 'taken' },
      ]);
    });
    const after = json(await t.api(writeKey, 'GET', `/products/${one.id}`), 200, 'getProduct').data;
    expect(after.variants.map((v) => v.sku)).toEqual(['CON-SKU-1']);
  });

  it('sixteen creates of one title at once all succeed, each with its own handle', async () => {
    const writeKey = await m.key(['products.write', 'products.read', 'collections.write', 'collections.read']);
    for (const [path, operation] of [
      ['/products', 'createProduct'],
      ['/collections', 'createCollection'],
    ] as const) {
      t.inFlight.reset();
      const res = await Promise.all(Array.from({ length: 16 }, () => t.api(writeKey, 'POST', path, { title: 'Same Title' })));
      expect(t.inFlight.peak, 'the creates overlapped').toBeGreaterThanOrEqual(2);
      const handles = res.map((r) => json(r, 201, operation).data.handle).sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
      expect([path, handles]).toEqual([path, ['same-title', ...Array.from({ length: 15 }, (_, i) => `same-title-${i + 2}`)]]);
    }
  });

  it('identical connected syncs at once: the first creates each record, the others update it', async () => {
    const body = {
      source_name: 'racing-source',
      media_assets: [{ external_id: 'img', url: 'https://cdn.example.com/r.jpg', kind: 'image' }],
      products: [{ external_id: 'p', title: 'Synced racer', variants: [{ external_id: 'v', sku: 'RACE-SYNC', price: 1 }] }],
    };
    const res = await Promise.all(Array.from({ length: 4 }, () => m.op('POST', '/connected-sync', body)));
    const outcomes = res.map((r) => json(r, 200, 'syncConnectedSource').data);
    const counts = (kind: 'products' | 'media_assets') => outcomes.map((o) => [o[kind].created, o[kind].updated]).sort();
    expect(counts('products')).toEqual([
      [0, 1],
      [0, 1],
      [0, 1],
      [1, 0],
    ]);
    expect(counts('media_assets')).toEqual([
      [0, 1],
      [0, 1],
      [0, 1],
      [1, 0],
    ]);
    expect(new Set(outcomes.map((o) => o.products.ids.p)).size).toBe(1);
  });

  it('a request whose key is held by an in-flight one answers 409 at once, without waiting for it', async () => {
    const order = await placeOrder(m, m.locations[0], [{ variant_id: p.variants[0].id, quantity: 1 }]);
    // Simulate the first request's open transaction holding the key's lock.
    await holding('select pg_advisory_xact_lock(hashtextextended($1, 0))', [`${m.id}|POST|/api/integrations/v1/fulfillments|slow-1`], async (client) => {
      const started = Date.now();
      const res = await fulfil(t, key, order, [1], { 'idempotency-key': 'slow-1' });
      expect(Date.now() - started).toBeLessThan(2000);
      expect(res.statusCode).toBe(409);
      expect(json(res, 409, 'createFulfillment').code).toBe('idempotency_in_progress');
      expect(res.headers['retry-after']).toBe('1');
      await client.query('rollback');
      const after = await fulfil(t, key, order, [1], { 'idempotency-key': 'slow-1' });
      expect(after.statusCode).toBe(201);
      expect(after.headers['idempotent-replayed']).toBeUndefined();
    });
  });
});

/** An API process of our own (src/main.ts) on the test database; resolves with its base URL. */
function startApiProcess(databaseUrl: string): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['src/main.ts'], {
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      ROLE: 'api',
      PORT: '0',
      HOST: '127.0.0.1',
      PLATFORM_ADMIN_TOKEN: OPERATOR_TOKEN,
      SEED_DEMO: 'false',
      LOG_LEVEL: 'info',
      RATE_LIMIT_PER_MINUTE: '100000',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`API process did not start: ${out}`)), 30_000);
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const m = /listening at (http:\/\/127\.0\.0\.1:\d+)/i.exec(out);
      if (m) {
        clearTimeout(timer);
        child.stdout!.off('data', onData);
        child.stdout!.resume();
        child.stderr!.resume();
        resolve({ url: m[1], child });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
    child.on('exit', (code) => reject(new Error(`API process exited (${code}): ${out}`)));
  });
}

describe.runIf(onPostgres())('several API processes on one PostgreSQL', () => {
  let t: TestApp;
  const children: ChildProcess[] = [];
  let urls: string[] = [];
  beforeAll(async () => {
    t = await startTestApp();
    const procs = await Promise.all([startApiProcess(t.database.url!), startApiProcess(t.database.url!)]);
    urls = procs.map((p) => p.url);
    children.push(...procs.map((p) => p.child));
  });
  afterAll(async () => {
    for (const c of children) {
      const gone = new Promise((r) => c.once('exit', r));
      c.kill('SIGTERM');
      await gone;
    }
    await t?.close();
  });

  it('one Idempotency-Key sent to both processes at once applies once; adjustments from both sum exactly', async () => {
    const m = await t.merchant({ locations: 1 });
    const key = await m.key(WAREHOUSE);
    const p = await makeProduct(t, m, 'Multi', [{ sku: 'MULTI-1', price: 1 }]);
    await addStock(t, key, p.variants[0].id, m.locations[0], 10);
    const order = await placeOrder(m, m.locations[0], [{ variant_id: p.variants[0].id, quantity: 5 }]);
    const post = (base: string, path: string, body: unknown, headers: Record<string, string> = {}) =>
      fetch(`${base}/api/integrations/v1${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });
    const body = { merchant_order_id: order.id, items: [{ merchant_order_item_id: order.line_items[0].id, quantity: 1 }] };
    // Hold the order row: the request that takes the key blocks on it while holding the key, so the
    // others surely arrive while it is in progress (the race happens, in both processes).
    const holder = new pg.Client({ connectionString: t.database.url! });
    await holder.connect();
    let res: Response[];
    try {
      await holder.query('begin');
      await holder.query('select id from orders where id = $1 for update', [order.id]);
      let answered = 0;
      const racing = Promise.all(
        Array.from({ length: 16 }, (_, i) => post(urls[i % 2], '/fulfillments', body, { 'idempotency-key': 'multi-1' }).finally(() => void answered++)),
      );
      await waitFor(() => answered === 15, { deadlineMs: 15_000, what: '15 of 16 requests answered while the first holds the key', describe: () => answered });
      await holder.query('commit');
      res = await racing;
    } finally {
      await holder.end();
    }
    const statuses = res.map((r) => (r.status === 201 && r.headers.get('idempotent-replayed') === 'true' ? 'replay' : String(r.status)));
    expect(statuses.filter((s) => s === '201')).toHaveLength(1);
    expect(statuses.every((s) => ['201', 'replay', '409'].includes(s))).toBe(true);
    // The race happened in both processes: each answered 409 idempotency_in_progress at least once.
    const inProgressBy = new Set(res.flatMap((r, i) => (r.status === 409 ? [urls[i % 2]] : [])));
    expect(inProgressBy.size, `statuses ${statuses.join(',')}`).toBe(2);
    const o = json(await t.api(key, 'GET', `/orders/${order.id}`), 200, 'getOrder').data;
    expect(o.fulfillment_summary.fulfillment_ids).toHaveLength(1);
    expect(o.line_items[0].fulfilled_quantity).toBe(1);

    const adj = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        post(urls[i % 2], '/inventory/adjustments', {
          adjustments: [{ variant_id: p.variants[0].id, fulfillment_location_id: m.locations[0], adjustment: 1 }],
        }),
      ),
    );
    expect(adj.map((r) => r.status)).toEqual(Array(20).fill(200));
    const row = json(await t.api(key, 'GET', `/inventory?variant_id=${p.variants[0].id}`), 200, 'listInventory').data[0];
    expect(row).toMatchObject({ on_hand: 10 - 1 + 20, committed: 4 });
  });
});
