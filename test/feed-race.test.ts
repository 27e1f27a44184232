// The event feed under concurrent commits, on PostgreSQL with real connections:
// - deterministic: an open transaction holds back the feed, later commits included, until it commits;
// - deterministic: an event written after another transaction committed comes after its events;
// - concurrent over HTTP: 4 writers for FEED_RACE_SECONDS (default 30) while 2 consumers follow
//   the feed with `after` and no overlap: every event exactly once, in order, ending on each row's
//   final state. A third reader without the horizon shows the race the horizon guards against.
import { isDeepStrictEqual } from 'node:util';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodePosition } from '../src/events/envelope.ts';
import { SCOPES } from '../src/http/scopes.ts';
import { adjustInventory } from '../src/modules/inventory/service.ts';
import { createOrder } from '../src/modules/orders/service.ts';
import type { Ctx } from '../src/http/context.ts';
import type { Database } from '../src/db/database.ts';
import { json, onPostgres, OPERATOR_TOKEN, startTestApp, type TestApp, type TestMerchant } from './helpers.ts';
import { makeProduct, type MadeProduct } from './fixtures.ts';
import { waitFor } from './wait.ts';

interface FeedEvent {
  id: string;
  type: string;
  created_at: string;
  location_id: string | null;
  position: string;
  data: { object: { id: string } & Record<string, unknown> };
}

function deferred<T = void>() {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] : NaN;
};

describe.runIf(onPostgres())('event feed under concurrent commits (PostgreSQL)', () => {
  let t: TestApp;
  let m: TestMerchant;
  let key: string;
  let p: MadeProduct;
  let ctx: (db: Database) => Ctx;

  beforeAll(async () => {
    t = await startTestApp();
    m = await t.merchant({ locations: 2 });
    key = await m.key([...SCOPES]);
    p = await makeProduct(t, m, 'Race feed', [
      { sku: 'RF-A', price: 2, inventory_policy: 'continue' },
      { sku: 'RF-B', price: 3, inventory_policy: 'continue' },
      { sku: 'RF-C', price: 4, inventory_policy: 'continue' },
    ]);
    ctx = (db) => ({ db, merchantId: m.id, apiKeyId: null, locationIds: null });
  });
  afterAll(() => t?.close());

  const feedAfter = async (after: string) => json(await t.api(key, 'GET', `/events?limit=250&after=${after}`), 200, 'listEvents').data as FeedEvent[];
  /** The position of the merchant's newest event, once the feed shows it (other sessions on the cluster may delay it). */
  const lastPosition = async () => {
    const newest = await t.database.db
      .selectFrom('events')
      .select(['position_xid', 'seq'])
      .where('merchant_id', '=', m.id)
      .where('type', '<>', 'ping')
      .orderBy('position_xid', 'desc')
      .orderBy('seq', 'desc')
      .executeTakeFirstOrThrow();
    const position = encodePosition({ xid: newest.position_xid, seq: newest.seq });
    await waitFor(
      async () => {
        let after = '';
        for (;;) {
          const page = json(await t.api(key, 'GET', `/events?limit=250${after}`), 200, 'listEvents').data as FeedEvent[];
          if (page.some((e) => e.position === position)) return true;
          if (page.length < 250) return undefined;
          after = `&after=${page[page.length - 1].position}`;
        }
      },
      { deadlineMs: 30_000, what: 'the feed to catch up', intervalMs: 25 },
    );
    return position;
  };

  it('an open transaction holds back the feed, commits after it included, until it commits; then both, its events first', async () => {
    const db = t.database.db;
    const start = await lastPosition();
    const t1Wrote = deferred<string>();
    const t1Release = deferred();
    // T1: order intake through the real service, in a transaction that stays open.
    const t1 = db.transaction().execute(async (trx) => {
      const order = await createOrder(ctx(trx), { fulfillment_location_id: m.locations[0], line_items: [{ variant_id: p.variants[0].id, quantity: 1 }] });
      t1Wrote.resolve(order.id);
      await t1Release.promise;
      return order.id;
    });
    try {
      const t1Order = await t1Wrote.promise;
      // T2: an adjustment over HTTP, committed while T1 is open (it does not touch T1's rows).
      const t2Row = json(
        await t.api(key, 'POST', '/inventory/adjustments', {
          adjustments: [{ variant_id: p.variants[1].id, fulfillment_location_id: m.locations[1], adjustment: 7 }],
        }),
        200,
        'adjustInventory',
      ).data[0];
      // The race happened: T2 is committed and readable, T1 is not.
      expect(json(await t.api(key, 'GET', `/inventory?variant_id=${p.variants[1].id}&location_id=${m.locations[1]}`), 200, 'listInventory').data[0]).toEqual(
        t2Row,
      );
      expect(json(await t.api(key, 'GET', `/orders/${t1Order}`), 404, 'getOrder').code).toBe('not_found');
      const { rows } = await sql<{
        n: number;
      }>`select count(*)::int as n from events where merchant_id = ${m.id} and type = 'inventory.updated' and payload->'object'->>'id' = ${t2Row.id}`.execute(
        db,
      );
      expect(rows[0].n).toBe(1);
      // Neither is past T1's start in the feed, however often it is asked.
      for (let i = 0; i < 5; i++) expect(await feedAfter(start)).toEqual([]);
    } finally {
      t1Release.resolve();
    }
    const t1Order = await t1;
    const seen = await waitFor(
      async () => {
        const events = await feedAfter(start);
        return events.length >= 3 ? events : undefined;
      },
      { deadlineMs: 30_000, what: 'both transactions in the feed', intervalMs: 25 },
    );
    expect(seen.map((e) => [e.type, e.data.object.id])).toEqual([
      ['order.created', t1Order],
      ['inventory.updated', expect.any(String)],
      ['inventory.updated', expect.any(String)],
    ]);
    expect(seen[1].location_id).toBe(m.locations[0]);
    expect(seen[2]).toMatchObject({ location_id: m.locations[1], data: { object: { on_hand: 7 } } });
  });

  it('an event written after another transaction committed comes after its events, even from an older transaction', async () => {
    const db = t.database.db;
    const start = await lastPosition();
    const row = { variant_id: p.variants[2].id, fulfillment_location_id: m.locations[0] };
    const t1Started = deferred();
    const t2Committed = deferred();
    // T1 takes its transaction id first (a write elsewhere), then writes the contended row last.
    const t1 = db.transaction().execute(async (trx) => {
      await adjustInventory(ctx(trx), [{ variant_id: p.variants[2].id, fulfillment_location_id: m.locations[1], adjustment: 1 }]);
      t1Started.resolve();
      await t2Committed.promise;
      return (await adjustInventory(ctx(trx), [{ ...row, adjustment: 100 }]))[0];
    });
    await t1Started.promise;
    const t2 = json(await t.api(key, 'POST', '/inventory/adjustments', { adjustments: [{ ...row, adjustment: 10 }] }), 200, 'adjustInventory').data[0];
    t2Committed.resolve();
    const final = await t1;
    expect([t2.on_hand, final.on_hand]).toEqual([10, 110]);
    // T1's transaction id is the older one: ordering by it alone would put T1's last word on the row first.
    const xids = await db
      .selectFrom('events')
      .select(['xid', sql<unknown>`payload->'object'->>'on_hand'`.as('on_hand')])
      .where('merchant_id', '=', m.id)
      .where(sql<boolean>`payload->'object'->>'id' = ${final.id}`)
      .execute();
    const xidOf = (onHand: number) => BigInt(xids.find((x) => Number(x.on_hand) === onHand)!.xid);
    expect(xidOf(110) < xidOf(10)).toBe(true);
    const seen = await waitFor(
      async () => {
        const events = await feedAfter(start);
        return events.length >= 3 ? events : undefined;
      },
      { deadlineMs: 30_000, what: 'both transactions in the feed', intervalMs: 25 },
    );
    const onRow = seen.filter((e) => e.data.object.id === final.id).map((e) => e.data.object.on_hand);
    expect(onRow).toEqual([10, 110]);
    expect(
      json(await t.api(key, 'GET', `/inventory?variant_id=${row.variant_id}&location_id=${row.fulfillment_location_id}`), 200, 'listInventory').data[0],
    ).toEqual(seen.filter((e) => e.data.object.id === final.id).at(-1)!.data.object);
  });

  it(
    "4 writers over HTTP while 2 consumers follow with after: each sees every event once, in order, ending on every row's final state",
    async () => {
      const seconds = Number(process.env.FEED_RACE_SECONDS ?? 30);
      const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
      const base = `${address}/api`;
      const db = t.database.db;
      const start = await lastPosition();
      const startRow = await db
        .selectFrom('events')
        .select(['position_xid', 'seq'])
        .where('merchant_id', '=', m.id)
        .orderBy('position_xid', 'desc')
        .orderBy('seq', 'desc')
        .executeTakeFirstOrThrow();
      const writeMs: number[] = [];
      const call = async (method: string, path: string, body?: unknown, auth = key) => {
        const began = performance.now();
        const res = await fetch(`${base}${path}`, {
          method,
          headers: { authorization: `Bearer ${auth}`, ...(body ? { 'content-type': 'application/json' } : {}) },
          body: body ? JSON.stringify(body) : undefined,
        });
        const out = { status: res.status, body: await res.json() };
        if (method === 'POST') writeMs.push(performance.now() - began);
        return out;
      };
      const pick = <T>(xs: T[]) => xs[Math.floor(Math.random() * xs.length)];
      const deadline = Date.now() + seconds * 1000;
      const orders: { id: string; line_items: { id: string }[] }[] = [];
      const fulfillments: string[] = [];
      const counts = { intake: 0, fulfillments: 0, adjustments: 0, tracking: 0, refused: 0, refusedAdjustments: 0 };
      /** Until the deadline, acts on one of the ten newest items of `list` (waiting while it is empty). */
      const eachRecent = async <T>(list: T[], act: (item: T) => Promise<void>) => {
        while (Date.now() < deadline) {
          if (!list.length) {
            await new Promise((r) => setTimeout(r, 5));
            continue;
          }
          await act(list[list.length - 1 - Math.floor(Math.random() * Math.min(list.length, 10))]);
        }
      };

      const writers = [
        async () => {
          while (Date.now() < deadline) {
            const lines = [pick(p.variants), pick(p.variants)]
              .filter((v, i, a) => a.indexOf(v) === i)
              .map((v) => ({ variant_id: v.id, quantity: 1 + Math.floor(Math.random() * 3) }));
            const r = await call(
              'POST',
              `/platform/v1/merchants/${m.id}/orders`,
              { fulfillment_location_id: pick(m.locations), line_items: lines },
              OPERATOR_TOKEN,
            );
            expect(r.status).toBe(201);
            orders.push(r.body.data);
            counts.intake++;
          }
        },
        () =>
          eachRecent(orders, async (order) => {
            const r = await call('POST', '/integrations/v1/fulfillments', {
              merchant_order_id: order.id,
              items: [{ merchant_order_item_id: pick(order.line_items).id, quantity: 1 }],
            });
            if (r.status === 201) {
              fulfillments.push(r.body.data.id);
              counts.fulfillments++;
            } else {
              expect([409, 422]).toContain(r.status);
              counts.refused++;
            }
          }),
        async () => {
          while (Date.now() < deadline) {
            const rows = [pick(p.variants), pick(p.variants)].map((v) => ({
              variant_id: v.id,
              fulfillment_location_id: pick(m.locations),
              adjustment: 1 + Math.floor(Math.random() * 5),
            }));
            const r = await call('POST', '/integrations/v1/inventory/adjustments', { adjustments: rows });
            if (r.status === 200) counts.adjustments++;
            else {
              // Fulfillments may have taken a row below zero (inventory_policy continue); an
              // increase that still leaves it negative is refused, and nothing else may be.
              expect(r.status).toBe(422);
              expect(r.body.code).toBe('validation_failed');
              expect(r.body.errors.length).toBeGreaterThan(0);
              expect(r.body.errors.map((e: { code: string }) => e.code)).toEqual(r.body.errors.map(() => 'negative_on_hand'));
              counts.refusedAdjustments++;
            }
          }
        },
        () =>
          eachRecent(fulfillments, async (id) => {
            const r = await call('POST', `/integrations/v1/fulfillments/${id}/tracking`, {
              tracking_number: `TRK-${Math.random().toString(36).slice(2, 10)}`,
              carrier_name: 'UPS',
            });
            expect(r.status).toBe(200);
            counts.tracking++;
          }),
      ];

      let writing = true;
      let total: number | null = null;
      const pageMs: number[] = [];
      const consumer = async () => {
        const seen: { event: FeedEvent; seenAt: number }[] = [];
        let after = start;
        const stopAt = () => Date.now() > deadline + 120_000;
        for (;;) {
          const began = performance.now();
          const r = await call('GET', `/integrations/v1/events?limit=250&after=${after}`);
          pageMs.push(performance.now() - began);
          expect(r.status).toBe(200);
          const now = Date.now();
          for (const event of r.body.data as FeedEvent[]) seen.push({ event, seenAt: now });
          if (seen.length) after = seen[seen.length - 1].event.position;
          if (!writing && total !== null && seen.length >= total) return seen;
          if (stopAt()) throw new Error(`consumer saw ${seen.length} of ${total} events`);
          if (r.body.data.length < 250) await new Promise((res) => setTimeout(res, 10));
        }
      };
      // The same order without the horizon: what a feed that trusted positions alone would deliver.
      const naive = async () => {
        const ids = new Set<string>();
        let after = { xid: startRow.position_xid, seq: startRow.seq };
        for (;;) {
          const rows = await db
            .selectFrom('events')
            .select(['id', 'position_xid', 'seq'])
            .where('merchant_id', '=', m.id)
            .where('type', '<>', 'ping')
            .where(sql<boolean>`(position_xid, seq) > (${after.xid}::xid8, ${after.seq}::bigint)`)
            .orderBy('position_xid')
            .orderBy('seq')
            .limit(250)
            .execute();
          for (const r of rows) ids.add(r.id);
          if (rows.length) after = { xid: rows[rows.length - 1].position_xid, seq: rows[rows.length - 1].seq };
          else if (!writing)
            return ids; // drained after the writers stopped: what is missing was skipped
          else await new Promise((res) => setTimeout(res, 5));
        }
      };

      // The horizon is cluster-wide: sample the oldest write transaction of other databases (other test runs).
      let elsewhereMs = 0;
      const sampler = (async () => {
        while (writing) {
          const { rows } = await sql<{ ms: number | null }>`
            select max(extract(epoch from clock_timestamp() - xact_start) * 1000)::int as ms
              from pg_stat_activity where backend_xid is not null and datname <> current_database()`.execute(db);
          elsewhereMs = Math.max(elsewhereMs, rows[0].ms ?? 0);
          await new Promise((res) => setTimeout(res, 100));
        }
      })();
      // FEED_MEASURE=1: what overlap would `updated_after` polling of the lists need? Poll with a wide
      // overlap and record, for each new row version, how far behind the newest updated_at already
      // seen it arrived (a poller with a smaller overlap would have missed it).
      const behindMs: number[] = [];
      const listPoller = async () => {
        const watermark = new Map<string, number>();
        const versions = new Set<string>();
        while (writing) {
          for (const list of ['/orders', '/fulfillments', '/inventory']) {
            const first = !watermark.has(list); // the first pass only sets the watermark
            const w = watermark.get(list) ?? Date.parse(startedAt);
            let cursor = '';
            let newest = w;
            do {
              const r = await call('GET', `/integrations/v1${list}?limit=250&updated_after=${new Date(w - 10_000).toISOString()}${cursor}`);
              for (const row of r.body.data as { id: string; updated_at: string }[]) {
                const u = Date.parse(row.updated_at);
                if (versions.has(`${row.id}@${row.updated_at}`)) continue;
                versions.add(`${row.id}@${row.updated_at}`);
                if (!first) behindMs.push(w - u);
                newest = Math.max(newest, u);
              }
              cursor = r.body.meta.next_cursor ? `&cursor=${encodeURIComponent(r.body.meta.next_cursor)}` : '';
            } while (cursor);
            watermark.set(list, newest);
          }
        }
      };
      const startedAt = new Date().toISOString();
      const poller = process.env.FEED_MEASURE === '1' ? listPoller() : Promise.resolve();
      const consumers = [consumer(), consumer()];
      const naiveSeen = naive();
      await Promise.all(writers.map((w) => w()));
      writing = false;
      const stored = await db
        .selectFrom('events')
        .select(['id'])
        .where('merchant_id', '=', m.id)
        .where('type', '<>', 'ping')
        .where(sql<boolean>`(position_xid, seq) > (${startRow.position_xid}::xid8, ${startRow.seq}::bigint)`)
        .execute();
      total = stored.length;
      const [a, b] = await Promise.all(consumers);
      const naiveIds = await naiveSeen;
      await sampler;
      await poller;

      expect(counts.intake).toBeGreaterThan(10);
      expect(counts.fulfillments).toBeGreaterThan(10);
      expect(counts.adjustments).toBeGreaterThan(10);
      expect(counts.tracking).toBeGreaterThan(10);
      for (const seen of [a, b]) {
        const ids = seen.map((s) => s.event.id);
        expect(new Set(ids).size).toBe(ids.length); // exactly once
        expect([...ids].sort()).toEqual(stored.map((s) => s.id).sort()); // every event
        const positions = seen.map((s) => s.event.position);
        for (let i = 1; i < positions.length; i++) expect(positions[i] > positions[i - 1]).toBe(true);
      }
      expect(a.map((s) => s.event.id)).toEqual(b.map((s) => s.event.id));

      // The last object seen for each order, fulfillment and inventory row is the row's final state.
      const last = new Map<string, { type: string; object: Record<string, unknown> }>();
      for (const { event } of a) last.set(event.data.object.id, { type: event.type, object: event.data.object });
      const finals: Record<string, unknown>[] = [];
      const mismatches: string[] = [];
      for (const [id, { type, object }] of last) {
        const path = type.startsWith('order.')
          ? `/orders/${id}`
          : type.startsWith('fulfillment.')
            ? `/fulfillments/${id}`
            : type.startsWith('inventory.')
              ? null
              : 'skip';
        if (path === 'skip') continue;
        const now = path
          ? path.startsWith('/orders/')
            ? json(await t.api(key, 'GET', path), 200, 'getOrder').data
            : json(await t.api(key, 'GET', path), 200, 'getFulfillment').data
          : json(await t.api(key, 'GET', `/inventory?variant_id=${object.variant_id}&location_id=${object.fulfillment_location_id}`), 200, 'listInventory')
              .data[0];
        finals.push(now);
        if (!isDeepStrictEqual(now, object)) mismatches.push(`${type} ${id}: feed ${JSON.stringify(object)} now ${JSON.stringify(now)}`);
      }
      expect(mismatches).toEqual([]);
      expect(finals.length).toBeGreaterThan(counts.intake);

      // Lag from the event's insert (at or before its commit) to a consumer seeing it; page latency.
      const lag = [...a, ...b].map((s) => s.seenAt - Date.parse(s.event.created_at));
      const missed = stored.filter((s) => !naiveIds.has(s.id)).length;
      const report = {
        seconds,
        writes: counts,
        events: total,
        lag_ms: { p50: pct(lag, 50), p99: pct(lag, 99), max: Math.max(...lag) },
        page_ms: { p50: Math.round(pct(pageMs, 50)), p99: Math.round(pct(pageMs, 99)), pages: pageMs.length },
        reader_without_horizon_missed: missed,
        oldest_transaction_elsewhere_ms: elsewhereMs,
        write_ms: { p50: Math.round(pct(writeMs, 50)), p99: Math.round(pct(writeMs, 99)) },
        ...(behindMs.length
          ? {
              updated_after: {
                versions: behindMs.length,
                arrived_at_or_behind_watermark: behindMs.filter((b) => b >= 0).length,
                overlap_needed_ms: Math.max(...behindMs) + 1,
              },
            }
          : {}),
      };
      console.log(`feed race: ${JSON.stringify(report)}`);
      // The race happened: a reader of the same order without the horizon skipped late commits.
      expect(missed).toBeGreaterThan(0);
    },
    Number(process.env.FEED_RACE_SECONDS ?? 30) * 1000 + 240_000,
  );
});
