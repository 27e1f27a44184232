// Benchmark data, built by SQL (generate_series) rather than through the API, so a million orders
// take a minute instead of hours. One merchant per tier with fixed ids and a fixed API key; every
// row is one the service could have written (the same tables, constraints and invariants).
//
// PostgreSQL: one database per tier (bench_data_10k, bench_data_1m), built once and reused while
// its row counts match; `--rebuild` drops and builds it again. The same statements load PGlite.
import pg from 'pg';
import { postgresDatabase } from '../src/db/database.ts';
import { migrate } from '../src/db/migrate.ts';
import { hashSecret } from '../src/http/keys.ts';

export const ADMIN_URL = process.env.BENCH_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const dbUrl = (name: string) => ADMIN_URL.replace(/\/[^/]*$/, `/${name}`);

export const MERCHANT_ID = '0b0e0c00-0000-4000-8000-000000000001';
export const LOCATIONS = ['0b0e0c00-0000-4000-8000-000000000002', '0b0e0c00-0000-4000-8000-000000000003'];
export const API_KEY = 'mia_sk_bench_0000000000000000000000000000000000000';
export const API_KEY_ID = '0b0e0c00-0000-4000-8000-000000000004';
// Written last: a tier without it was interrupted (or built by an older version of this file:
// version 2 lays each order's and fulfillment's lines side by side) and is built again.
const MARK_VERSION = 2;

export interface Tier {
  name: '10k' | '1m';
  orders: number;
  products: number; // 3 variants each
  fulfillments: number; // one per 10th order
}

export const TIERS: Record<Tier['name'], Tier> = {
  '10k': { name: '10k', orders: 10_000, products: 100, fulfillments: 1_000 },
  '1m': { name: '1m', orders: 1_000_000, products: 10_000, fulfillments: 100_000 },
};

export const tierDatabase = (t: Tier) => `bench_data_${t.name}`;

/**
 * The shape of the data, which the benchmark relies on:
 * - orders i = 1..N: order_number 1000 + i, created/updated at 2026-01-01 + i s, two lines each
 *   (variants (7i mod V) + 1 and (13i + 1 mod V) + 1), alternating between the two locations;
 * - orders with i mod 10 = 5 have a fulfillment covering both lines (j = (i - 5) / 10 + 1):
 *   cancelled when j mod 20 = 0 (the order stays open), pending when j mod 4 = 1, shipped (with
 *   tracking) otherwise (the order is closed and fulfilled); orders with i mod 50 = 7 are cancelled;
 * - every variant has a level at both locations (on_hand 1,000,000, committed 1,000).
 */
export function tierStatements(t: Tier): string[] {
  const m = `'${MERCHANT_ID}'::uuid`;
  const V = t.products * 3;
  const base = `timestamptz '2026-01-01 00:00:00+00'`;
  const fStatus = (i: string) =>
    `(case when (((${i}) - 5) / 10 + 1) % 20 = 0 then 'cancelled' when (((${i}) - 5) / 10 + 1) % 4 = 1 then 'pending' else 'shipped' end)`;
  const fulfilledOrder = (i: string) => `((${i}) % 10 = 5 and ${fStatus(i)} <> 'cancelled')`;
  const scopes = [
    'products.read',
    'products.write',
    'orders.read',
    'inventory.read',
    'inventory.adjust',
    'fulfillments.read',
    'fulfillments.create',
    'fulfillments.tracking.write',
  ];
  return [
    `insert into merchants (id, name, next_order_number, created_at, updated_at) values (${m}, 'Bench merchant', ${1001 + t.orders}, ${base}, ${base})`,
    `insert into locations (id, merchant_id, name, created_at, updated_at) values
       ('${LOCATIONS[0]}', ${m}, 'Bench main warehouse', ${base}, ${base}), ('${LOCATIONS[1]}', ${m}, 'Bench second warehouse', ${base}, ${base})`,
    `insert into api_keys (id, merchant_id, label, prefix, secret_hash, scopes)
       values ('${API_KEY_ID}', ${m}, 'bench', '${API_KEY.slice(0, 13)}', '${hashSecret(API_KEY)}', array[${scopes.map((s) => `'${s}'`).join(',')}])`,
    `insert into products (merchant_id, title, description, handle, status, created_at, updated_at)
       select ${m}, 'Bench product ' || i, 'A product of the benchmark catalog.', 'bench-product-' || i, 'active',
              ${base} + i * interval '1 second', ${base} + i * interval '1 second'
         from generate_series(1, ${t.products}) i`,
    `insert into variants (merchant_id, product_id, position, sku, option1, price, weight, created_at, updated_at)
       select ${m}, p.id, k, 'BENCH-' || lpad(((p.n - 1) * 3 + k + 1)::text, 6, '0'), 'Size ' || k, 10 + k + p.n % 50, 250, p.created_at, p.updated_at
         from (select id, created_at, updated_at, row_number() over (order by created_at) n from products where merchant_id = ${m}) p,
              generate_series(0, 2) k`,
    // The variant numbering the orders below refer to (1..V, in SKU order).
    `create temporary table bench_v as
       select row_number() over (order by v.sku)::int vn, v.id, v.product_id, v.sku, v.price, p.title, v.option1 variant_title
         from variants v join products p on p.id = v.product_id where v.merchant_id = ${m}`,
    `create unique index on bench_v (vn)`,
    `insert into inventory_levels (merchant_id, variant_id, location_id, on_hand, committed, created_at, updated_at)
       select ${m}, v.id, l.id, 1000000, 1000, ${base} + (v.vn * 2 + l.n) * interval '1 second', ${base} + (v.vn * 2 + l.n) * interval '1 second'
         from bench_v v, (values ('${LOCATIONS[0]}'::uuid, 0), ('${LOCATIONS[1]}'::uuid, 1)) l(id, n)`,
    `insert into orders (merchant_id, order_number, status, fulfillment_status, fulfillment_location_id, currency, total_price,
                         customer, shipping_address, cancelled_at, created_at, updated_at)
       select ${m}, 1000 + i,
              case when ${fulfilledOrder('i')} then 'closed' when i % 50 = 7 then 'cancelled' else 'open' end,
              case when ${fulfilledOrder('i')} then 'fulfilled' else 'unfulfilled' end,
              case when i % 2 = 0 then '${LOCATIONS[0]}'::uuid else '${LOCATIONS[1]}'::uuid end,
              'USD', (1 + i % 3) * a.price + (1 + (i + 1) % 2) * b.price,
              jsonb_build_object('name', 'Customer ' || i, 'email', 'customer' || i || '@example.com'),
              jsonb_build_object('name', 'Customer ' || i, 'address1', i || ' Bench Street', 'city', 'Springfield', 'postal_code', lpad((i % 100000)::text, 5, '0'), 'country_code', 'US'),
              case when i % 50 = 7 then ${base} + i * interval '1 second' end,
              ${base} + i * interval '1 second', ${base} + i * interval '1 second'
         from generate_series(1, ${t.orders}) i
         join bench_v a on a.vn = (i * 7) % ${V} + 1
         join bench_v b on b.vn = (i * 13 + 1) % ${V} + 1`,
    // Lines and fulfillment items are written in their parent's order, each parent's rows together,
    // as the service writes them (one statement per order or fulfillment): without the ORDER BY the
    // join's own order put an order's two lines on two pages at both tiers, and a fulfillment's
    // items on two pages at 1M but one at 10k, so the 1M deep fulfillments page read twice the
    // heap pages of the 10k one (scale 1.28 for the service, issue #14).
    `insert into order_line_items (merchant_id, order_id, position, product_id, variant_id, sku, title, variant_title, quantity, fulfilled_quantity, price, created_at, updated_at)
       select ${m}, o.id, k, v.product_id, v.id, v.sku, v.title, v.variant_title, q.q,
              case when o.fulfillment_status = 'fulfilled' then q.q else 0 end, v.price, o.created_at, o.created_at
         from (select id, created_at, fulfillment_status, (order_number - 1000)::int i from orders where merchant_id = ${m}) o
         cross join generate_series(0, 1) k
         cross join lateral (select case when k = 0 then 1 + o.i % 3 else 1 + (o.i + 1) % 2 end q,
                                    case when k = 0 then (o.i * 7) % ${V} + 1 else (o.i * 13 + 1) % ${V} + 1 end vn) q
         join bench_v v on v.vn = q.vn
        order by o.i, k`,
    `insert into fulfillments (merchant_id, order_id, fulfillment_location_id, status, carrier_name, service_level,
                               tracking_number, tracking_url, tracking_carrier_name, tracking_service_level, created_at, updated_at)
       select ${m}, o.id, o.fulfillment_location_id, ${fStatus('o.i')}, 'UPS', 'ground',
              case when ${fStatus('o.i')} = 'shipped' then '1Z' || lpad(o.i::text, 12, '0') end,
              case when ${fStatus('o.i')} = 'shipped' then 'https://track.example.com/1Z' || lpad(o.i::text, 12, '0') end,
              case when ${fStatus('o.i')} = 'shipped' then 'UPS' end,
              case when ${fStatus('o.i')} = 'shipped' then 'ground' end,
              o.created_at + interval '500 milliseconds', o.created_at + interval '500 milliseconds'
         from (select id, created_at, fulfillment_location_id, (order_number - 1000)::int i from orders where merchant_id = ${m}) o
        where o.i % 10 = 5`,
    `insert into fulfillment_items (merchant_id, fulfillment_id, line_item_id, position, quantity)
       select ${m}, f.id, l.id, l.position, l.quantity
         from fulfillments f join order_line_items l on l.order_id = f.order_id
        where f.merchant_id = ${m}
        order by f.created_at, f.id, l.position`,
    `drop table bench_v`,
    `insert into settings (key, value) values ('bench.tier', '${mark(t)}')`,
  ];
}

const mark = (t: Tier) => JSON.stringify({ version: MARK_VERSION, orders: t.orders, products: t.products, fulfillments: t.fulfillments });

/** The counts a built tier has (null when it is missing or was interrupted). */
async function builtCounts(client: pg.Client, t: Tier): Promise<boolean> {
  const marked = await client.query(`select value from settings where key = 'bench.tier'`).catch(() => null);
  if (!marked || marked.rows[0]?.value !== mark(t)) return false;
  const { rows } = await client.query(
    `select (select count(*) from orders where merchant_id = $1)::int orders,
            (select count(*) from variants where merchant_id = $1)::int variants`,
    [MERCHANT_ID],
  );
  return rows[0].orders === t.orders && rows[0].variants === t.products * 3;
}

/**
 * The planner's cost of a random page read on the tiers' databases: 1.1, as PostgreSQL's manual
 * suggests for solid-state storage, where this machine keeps them (and both tiers fit in memory).
 * With the default of 4 (disks that seek), PostgreSQL sorted 600 inventory rows rather than read
 * 251 of them in order through the index, 15–20 % slower here (README "Benchmark").
 */
const RANDOM_PAGE_COST = 1.1;

/** Set RANDOM_PAGE_COST on database `name` (a database's settings are not copied with it). */
const costAsSolidState = (admin: pg.Client, name: string) => admin.query(`alter database ${name} set random_page_cost = ${RANDOM_PAGE_COST}`);

/** Make sure the tier's database exists with the expected rows; build it when not (or when asked). */
export async function ensureTier(t: Tier, rebuild: boolean, log: (s: string) => void): Promise<string> {
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  try {
    const url = await ensureTierData(admin, t, rebuild, log);
    await costAsSolidState(admin, tierDatabase(t));
    return url;
  } finally {
    await admin.end();
  }
}

async function ensureTierData(admin: pg.Client, t: Tier, rebuild: boolean, log: (s: string) => void): Promise<string> {
  const name = tierDatabase(t);
  const url = dbUrl(name);
  const exists = (await admin.query('select 1 from pg_database where datname = $1', [name])).rowCount === 1;
  if (exists && !rebuild) {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    let ok: boolean;
    try {
      ok = await builtCounts(client, t);
      // The read parts write the request log (one row per request, hundreds of thousands a run):
      // emptied, so every run starts from the tier as built rather than from a growing table.
      if (ok) await client.query('truncate request_log');
    } finally {
      await client.end();
    }
    if (ok) {
      log(`data: ${name} reused (${t.orders.toLocaleString('en')} orders)`);
      return url;
    }
  }
  const started = Date.now();
  log(
    `data: building ${name} (${t.orders.toLocaleString('en')} orders, ${(t.products * 3).toLocaleString('en')} variants, ${t.fulfillments.toLocaleString('en')} fulfillments)…`,
  );
  await admin.query(`drop database if exists ${name} with (force)`);
  await admin.query(`create database ${name}`);
  const handle = postgresDatabase(url, 1);
  await migrate(handle.db);
  await handle.close();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (const statement of tierStatements(t)) await client.query(statement);
    await client.query('vacuum analyze');
  } finally {
    await client.end();
  }
  log(`data: ${name} built in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  return url;
}

/** A throw-away copy of a tier for runs that write (the tier itself stays as built). */
export async function scratchCopy(t: Tier, name: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`drop database if exists ${name} with (force)`);
  await admin.query(`create database ${name} template ${tierDatabase(t)}`);
  await costAsSolidState(admin, name);
  return {
    url: dbUrl(name),
    drop: async () => {
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
  };
}
