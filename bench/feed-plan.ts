// The cost of an event-feed page as the table grows: the plan and timing of the feed's own page
// query (src/modules/events/queries.ts) at 10,000 and at 1,000,000 events of one merchant, on a
// scratch database of the local PostgreSQL (dropped afterwards).
//   BENCH_FEED_DB=h13_bench node bench/feed-plan.ts
// Events are inserted in transactions of 1,000 (as many distinct transaction ids), beside a second
// merchant's events interleaved, so the index holds more than the merchant being read.
import pg from 'pg';
import { postgresDatabase } from '../src/db/database.ts';
import { migrate } from '../src/db/migrate.ts';
import { encodePosition, decodePosition } from '../src/events/envelope.ts';
import { feedPageQuery } from '../src/modules/events/queries.ts';
import { merchantScope } from '../src/db/scope.ts';

const ADMIN = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const NAME = process.env.BENCH_FEED_DB ?? 'h13_bench';
const STEPS = [10_000, 1_000_000];

const admin = new pg.Client({ connectionString: ADMIN });
await admin.connect();
await admin.query(`drop database if exists ${NAME} with (force)`);
await admin.query(`create database ${NAME}`);
const url = new URL(ADMIN);
url.pathname = `/${NAME}`;
const handle = postgresDatabase(url.toString(), 2);
const client = new pg.Client({ connectionString: url.toString() });
try {
  await migrate(handle.db);
  await client.connect();
  const merchant = async (name: string) => (await client.query<{ id: string }>(`insert into merchants (name) values ($1) returning id`, [name])).rows[0].id;
  const [reader, other] = [await merchant('feed bench'), await merchant('neighbour')];
  const payload = JSON.stringify({ object: { id: '00000000-0000-0000-0000-000000000000', on_hand: 10, committed: 2, available: 8, sku: 'BENCH-SKU' } });
  let have = 0;
  for (const target of STEPS) {
    const started = Date.now();
    while (have < target) {
      // One transaction per 1,000 events of the reader (and 250 of the neighbour): distinct xids.
      await client.query(
        `insert into events (merchant_id, type, location_id, payload)
         select case when g % 5 = 0 then $2::uuid else $1::uuid end, 'inventory.updated', null, $3::jsonb from generate_series(1, 1250) g`,
        [reader, other, payload],
      );
      have += 1000;
    }
    await client.query('analyze events');
    console.log(`\n== ${target.toLocaleString('en')} events of the merchant (loaded in ${((Date.now() - started) / 1000).toFixed(0)} s) ==`);
    const positions = (
      await client.query<{ position_xid: string; seq: string }>(
        `select position_xid::text, seq::text from events where merchant_id = $1 order by position_xid, seq offset $2 limit 1`,
        [reader, Math.floor(target / 2)],
      )
    ).rows[0];
    const middle = encodePosition({ xid: positions.position_xid, seq: positions.seq });
    for (const [label, after] of [
      ['first page', null],
      ['page from the middle', middle],
    ] as const) {
      const query = feedPageQuery(handle.db, merchantScope(reader), null, after ? decodePosition(after) : null, 51, 30).compile();
      const plan = await client.query(`explain (analyze, buffers, costs off, timing off, summary on) ${query.sql}`, query.parameters as unknown[]);
      console.log(`-- ${label}, limit 50 (+1)\n${plan.rows.map((r) => r['QUERY PLAN']).join('\n')}`);
      const times: number[] = [];
      for (let i = 0; i < 300; i++) {
        const t0 = performance.now();
        await client.query(query.sql, query.parameters as unknown[]);
        times.push(performance.now() - t0);
      }
      times.sort((a, b) => a - b);
      console.log(`   ${label}: p50 ${times[150].toFixed(2)} ms, p99 ${times[297].toFixed(2)} ms over 300 runs (client round trip included)`);
      // As the service sends it: a named prepared statement. Which plans PostgreSQL keeps, with the
      // row count as a parameter (as the feed sends it) and written in (as the lists write theirs).
      const written = query.sql.replace(/limit \$\d+$/, 'limit 51');
      if (written === query.sql) throw new Error(`the feed's statement no longer ends in limit $n: ${query.sql.slice(-80)}`);
      for (const [form, text, values] of [
        ['limit $n', query.sql, query.parameters],
        ['limit 51', written, query.parameters.slice(0, -1)],
      ] as const) {
        const name = `feed_${target}_${after ? 'middle' : 'first'}_${form === 'limit 51' ? 'literal' : 'parameter'}`;
        const runs: number[] = [];
        for (let i = 0; i < 100; i++) {
          const t0 = performance.now();
          await client.query({ name, text, values: values as unknown[] });
          runs.push(performance.now() - t0);
        }
        runs.sort((a, b) => a - b);
        const kept = (await client.query(`select generic_plans, custom_plans from pg_prepared_statements where name = $1`, [name])).rows[0];
        console.log(
          `   ${label}, prepared, ${form}: ${kept.generic_plans} generic and ${kept.custom_plans} custom plans in 100 runs, p50 ${runs[50].toFixed(2)} ms`,
        );
      }
    }
  }
  const size = await client.query(`select pg_size_pretty(pg_relation_size('events')) as t, pg_size_pretty(pg_relation_size('events_feed')) as i`);
  console.log(`\nevents table ${size.rows[0].t}, events_feed index ${size.rows[0].i}`);
} finally {
  await client.end().catch(() => {});
  await handle.close();
  await admin.query(`drop database if exists ${NAME} with (force)`);
  await admin.end();
}
