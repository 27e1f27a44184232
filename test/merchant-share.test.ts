// One merchant's burst does not take every database connection of an API process: its requests
// beyond MERCHANT_CONCURRENCY wait their turn, and another merchant's requests are served at once.
// PostgreSQL only: a row lock held from the test's own session keeps the burst's writes in progress.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, onPostgres, startMerchantApp, type TestApp, type TestMerchant } from './helpers.ts';
import { makeProduct, WAREHOUSE } from './fixtures.ts';
import { waitFor } from './wait.ts';

describe.runIf(onPostgres())('a merchant share of the connections', () => {
  let t: TestApp;
  let m: TestMerchant;
  let key: string;
  beforeAll(async () => {
    // The test database's pool has 20 connections; a burst of 25 would take them all.
    ({ t, m, key } = await startMerchantApp({ config: { merchantConcurrency: 3, requestLogEnabled: false }, locations: 1, scopes: WAREHOUSE }));
  });
  afterAll(() => t?.close());

  it("25 writes queued on one locked row hold 3 connections, not the pool; another merchant's read is answered meanwhile; all 25 apply once", async () => {
    const variant = (await makeProduct(t, m, 'Hot', [{ sku: 'HOT-1', price: 1, inventory_policy: 'continue' }])).variants[0].id;
    const adjust = (n: number) =>
      t.api(
        key,
        'POST',
        '/inventory/adjustments',
        { adjustments: [{ variant_id: variant, fulfillment_location_id: m.locations[0], adjustment: 1 }] },
        { 'idempotency-key': `burst-${n}` },
      );
    json(await adjust(0), 200, 'adjustInventory');

    const other = await t.merchant({ locations: 1 });
    const otherKey = await other.key(['orders.read']);
    const lock = new pg.Client({ connectionString: t.database.url! });
    await lock.connect();
    try {
      await lock.query('begin');
      await lock.query('select on_hand from inventory_levels where variant_id = $1 for update', [variant]);
      const burst = Array.from({ length: 25 }, (_, i) => adjust(i + 1));
      // pg_stat_activity is read once per transaction unless its snapshot is cleared (this session is in one).
      const sessions = async () => {
        await lock.query('select pg_stat_clear_snapshot()');
        return (await lock.query(`select wait_event_type, left(query, 60) as q from pg_stat_activity where datname = current_database()`)).rows as {
          wait_event_type: string | null;
        }[];
      };
      const waiting = async () => (await sessions()).filter((r) => r.wait_event_type === 'Lock').length;
      await waitFor(async () => (await waiting()) === 3, { deadlineMs: 10_000, what: '3 adjustments to wait on the lock', describe: sessions });
      expect(t.app.merchantShare.inProgress(m.id)).toBe(3);

      const started = Date.now();
      const read = await t.api(otherKey, 'GET', '/locations');
      expect(read.statusCode, read.body).toBe(200);
      expect(Date.now() - started).toBeLessThan(2_000);
      // Still 3: the others wait their turn outside the pool.
      expect(await waiting()).toBe(3);

      await lock.query('rollback');
      const answers = await Promise.all(burst);
      expect(answers.map((r) => r.statusCode)).toEqual(Array(25).fill(200));
      const level = await lock.query('select on_hand from inventory_levels where variant_id = $1', [variant]);
      expect(level.rows[0].on_hand).toBe(26);
      expect(t.app.merchantShare.inProgress(m.id)).toBe(0);
    } finally {
      await lock.end();
    }
  }, 60_000);
});
