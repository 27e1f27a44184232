// Writes, on a throw-away copy of the 10k tier: adjustment batches on hot SKUs (throughput, p99,
// then exact sums), fulfillments of 3-line orders, and the statements each write sends (counted in
// a separate service process by bench/count-statements.ts, not during the timed runs).
import pg from 'pg';
import { API_KEY, LOCATIONS, MERCHANT_ID, TIERS, scratchCopy } from './data.ts';
import { OPERATOR_TOKEN, PORTS, fmt, loadAverage, log, median, ms, percentile, startService, table } from './common.ts';

const API = '/api/integrations/v1';
const WRITE_SECONDS = Number(process.env.BENCH_WRITE_SECONDS ?? 15);
const CLIENTS = 50;
const HOT = 20;
const ROWS = 10;
const FULFILLMENT_ORDERS = 200;

export interface WritesResult {
  adjustments: { batches: number; seconds: number; p50: number; p99: number; failed: Record<string, number>; sumsExact: boolean; mismatches: number };
  orders: { count: number; perSecond: number; p50: number; p99: number };
  fulfillments: { count: number; perSecond: number; p50: number; p99: number };
  statements: { label: string; total: number; withoutTx: number }[];
}

async function post(base: string, path: string, body: unknown, auth: string) {
  const t = performance.now();
  const res = await fetch(base + path, {
    method: 'POST',
    headers: { authorization: `Bearer ${auth}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as { data: any };
  return { status: res.status, ms: performance.now() - t, data: json.data, body: json };
}

/** n workers, each taking the next job until none is left. */
async function pool<T>(n: number, jobs: T[], fn: (job: T) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (next < jobs.length) await fn(jobs[next++]);
    }),
  );
}

const shuffle = <T>(xs: T[]) =>
  xs
    .map((x) => [Math.random(), x] as const)
    .sort((a, b) => a[0] - b[0])
    .map((x) => x[1]);

async function adjustments(base: string, client: pg.Client, hot: string[]): Promise<WritesResult['adjustments']> {
  const levels = async () =>
    new Map(
      (
        await client.query<{ variant_id: string; on_hand: number }>(
          `select variant_id, on_hand from inventory_levels where location_id = $1 and variant_id = any($2::uuid[])`,
          [LOCATIONS[0], hot],
        )
      ).rows.map((r) => [r.variant_id, r.on_hand]),
    );
  const start = await levels();
  const accepted = new Map(hot.map((v) => [v, 0]));
  const latencies: number[] = [];
  const failed: Record<string, number> = {};
  const t0 = performance.now();
  const until = t0 + WRITE_SECONDS * 1000;
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (performance.now() < until) {
        const rows = shuffle(hot)
          .slice(0, ROWS)
          .map((variant_id) => ({
            variant_id,
            fulfillment_location_id: LOCATIONS[0],
            adjustment: (Math.random() < 0.5 ? -1 : 1) * (1 + Math.floor(Math.random() * 5)),
          }));
        const r = await post(base, `${API}/inventory/adjustments`, { adjustments: rows }, API_KEY);
        if (r.status === 200) {
          latencies.push(r.ms);
          for (const row of rows) accepted.set(row.variant_id, accepted.get(row.variant_id)! + row.adjustment);
        } else {
          const code = `${r.status} ${(r.body as { code?: string }).code ?? ''}`.trim();
          failed[code] = (failed[code] ?? 0) + 1;
        }
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  const end = await levels();
  const mismatches = hot.filter((v) => end.get(v) !== start.get(v)! + accepted.get(v)!).length;
  return {
    batches: latencies.length,
    seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    failed,
    sumsExact: mismatches === 0,
    mismatches,
  };
}

async function createOrder(base: string, variants: string[]) {
  return post(
    base,
    `/api/platform/v1/merchants/${MERCHANT_ID}/orders`,
    { fulfillment_location_id: LOCATIONS[0], line_items: variants.map((variant_id) => ({ variant_id, quantity: 1 })) },
    OPERATOR_TOKEN,
  );
}

const fulfillmentBody = (order: any) => ({
  merchant_order_id: order.id,
  carrier_name: 'UPS',
  items: order.line_items.map((l: any) => ({ merchant_order_item_id: l.id, quantity: l.quantity })),
});

/** The statements of one request, counted in a separate process (after one warm-up request). */
async function countStatements(base: string, counter: string, label: string, request: () => Promise<{ status: number }>) {
  const runs: { total: number; withoutTx: number }[] = [];
  for (let i = 0; i < 3; i++) {
    await fetch(counter, { method: 'POST' });
    const r = await request();
    if (r.status >= 300) throw new Error(`${label}: ${r.status}`);
    const c = (await (await fetch(counter)).json()) as { total: number; begin: number; commit: number; rollback: number };
    runs.push({ total: c.total, withoutTx: c.total - c.begin - c.commit - c.rollback });
  }
  // The least of three: a background statement (an API key's last_used_at) can land in one run.
  return { label, total: Math.min(...runs.map((r) => r.total)), withoutTx: Math.min(...runs.map((r) => r.withoutTx)) };
}

export async function runWrites(): Promise<WritesResult> {
  const scratch = await scratchCopy(TIERS['10k'], 'bench_run_writes');
  const client = new pg.Client({ connectionString: scratch.url });
  await client.connect();
  try {
    const variants = (await client.query<{ id: string }>(`select id from variants where merchant_id = $1 order by sku`, [MERCHANT_ID])).rows.map((r) => r.id);
    const hot = variants.slice(0, HOT);
    log(`writes: ${CLIENTS} clients × ${ROWS}-row batches on ${HOT} hot SKUs for ${WRITE_SECONDS} s (load average ${loadAverage()})`);
    const service = await startService('service', PORTS.service, { ROLE: 'api', DATABASE_URL: scratch.url });
    let adj: WritesResult['adjustments'];
    const orders: number[] = [];
    const fulfillments: number[] = [];
    let ordersSeconds = 0;
    let fulfillmentSeconds = 0;
    try {
      adj = await adjustments(service.url, client, hot);
      log(
        `  adjustments: ${fmt(adj.batches / adj.seconds, 1)} batches/s, p99 ${ms(adj.p99)} ms, sums ${adj.sumsExact ? 'exact' : `WRONG on ${adj.mismatches} SKUs`}`,
      );
      // 3-line orders (operator intake), then one fulfillment of all three lines each, 10 at a time.
      const created: any[] = [];
      let t = performance.now();
      await pool(
        10,
        Array.from({ length: FULFILLMENT_ORDERS }, (_, i) => i),
        async (i) => {
          const r = await createOrder(
            service.url,
            [0, 1, 2].map((k) => variants[(HOT + i * 3 + k) % variants.length]),
          );
          if (r.status !== 201) throw new Error(`order intake: ${r.status} ${JSON.stringify(r.body)}`);
          orders.push(r.ms);
          created.push(r.data);
        },
      );
      ordersSeconds = (performance.now() - t) / 1000;
      t = performance.now();
      await pool(10, created, async (order) => {
        const r = await post(service.url, `${API}/fulfillments`, fulfillmentBody(order), API_KEY);
        if (r.status !== 201) throw new Error(`fulfillment: ${r.status} ${JSON.stringify(r.body)}`);
        fulfillments.push(r.ms);
      });
      fulfillmentSeconds = (performance.now() - t) / 1000;
    } finally {
      await service.stop();
    }

    // Statement counts: another service process with the counting preload, request log off (its
    // batched inserts would land in random requests' counts).
    const counted = await startService(
      'counted service',
      PORTS.counted,
      { ROLE: 'api', DATABASE_URL: scratch.url, REQUEST_LOG_ENABLED: 'false', BENCH_COUNTER_PORT: String(PORTS.counter) },
      ['--import', './bench/count-statements.ts'],
    );
    const statements: WritesResult['statements'] = [];
    try {
      const counter = `http://127.0.0.1:${PORTS.counter}/`;
      const base = counted.url;
      const batch = (n: number, offset: number) => ({
        adjustments: variants.slice(offset, offset + n).map((variant_id) => ({ variant_id, fulfillment_location_id: LOCATIONS[1], adjustment: 1 })),
      });
      await post(base, `${API}/inventory/adjustments`, batch(1, 0), API_KEY); // warm-up (touches the key's last_used_at)
      statements.push(
        await countStatements(base, counter, 'POST /inventory/adjustments, 1 row', () => post(base, `${API}/inventory/adjustments`, batch(1, 100), API_KEY)),
      );
      statements.push(
        await countStatements(base, counter, 'POST /inventory/adjustments, 10 rows', () => post(base, `${API}/inventory/adjustments`, batch(10, 100), API_KEY)),
      );
      statements.push(
        await countStatements(base, counter, 'POST /inventory/adjustments, 100 rows (the most a batch takes)', () =>
          post(base, `${API}/inventory/adjustments`, batch(100, 100), API_KEY),
        ),
      );
      let k = 0;
      const order = async (lines: number) => {
        const r = await createOrder(
          base,
          Array.from({ length: lines }, () => variants[HOT + (k++ % (variants.length - HOT))]),
        );
        if (r.status !== 201) throw new Error(`order intake: ${r.status} ${JSON.stringify(r.body)}`);
        return r.data;
      };
      statements.push(await countStatements(base, counter, 'POST …/orders (operator intake), 3 lines', () => createOrder(base, variants.slice(50, 53))));
      statements.push(await countStatements(base, counter, 'POST …/orders (operator intake), 100 lines', () => createOrder(base, variants.slice(50, 150))));
      const three = [await order(3), await order(3), await order(3)];
      const many = [await order(100), await order(100), await order(100)];
      statements.push(
        await countStatements(base, counter, 'POST /fulfillments, 3 lines', () => post(base, `${API}/fulfillments`, fulfillmentBody(three.shift()), API_KEY)),
      );
      statements.push(
        await countStatements(base, counter, 'POST /fulfillments, 100 lines', () => post(base, `${API}/fulfillments`, fulfillmentBody(many.shift()), API_KEY)),
      );
      const orderId = (await order(2)).id;
      statements.push(
        await countStatements(base, counter, 'GET /orders/:id', () =>
          fetch(`${base}${API}/orders/${orderId}`, { headers: { authorization: `Bearer ${API_KEY}` } }),
        ),
      );
      for (const [label, path] of [
        ['GET /products?limit=50', '/products?limit=50'],
        ['GET /orders?limit=50', '/orders?limit=50'],
        ['GET /inventory?limit=250', '/inventory?limit=250'],
        ['GET /fulfillments?limit=50', '/fulfillments?limit=50'],
      ]) {
        statements.push(await countStatements(base, counter, label, () => fetch(`${base}${API}${path}`, { headers: { authorization: `Bearer ${API_KEY}` } })));
      }
    } finally {
      await counted.stop();
    }
    return {
      adjustments: adj,
      orders: { count: orders.length, perSecond: orders.length / ordersSeconds, p50: median(orders), p99: percentile(orders, 99) },
      fulfillments: {
        count: fulfillments.length,
        perSecond: fulfillments.length / fulfillmentSeconds,
        p50: median(fulfillments),
        p99: percentile(fulfillments, 99),
      },
      statements,
    };
  } finally {
    await client.end();
    await scratch.drop();
  }
}

export function writesReport(w: WritesResult): string {
  const a = w.adjustments;
  const failed =
    Object.entries(a.failed)
      .map(([k, v]) => `${v} × ${k}`)
      .join(', ') || 'none';
  return [
    table(
      ['write', 'rate', 'p50 / p99 ms', 'notes'],
      [
        [
          `POST /inventory/adjustments (${ROWS} rows, ${CLIENTS} clients, ${HOT} hot SKUs, ${WRITE_SECONDS} s)`,
          `${fmt(a.batches / a.seconds, 1)} batches/s`,
          `${ms(a.p50)} / ${ms(a.p99)}`,
          `sums ${a.sumsExact ? 'exact' : `WRONG on ${a.mismatches} SKUs`}; refused: ${failed}`,
        ],
        [
          `POST …/orders (operator intake, 3 lines, 10 clients, ${w.orders.count})`,
          `${fmt(w.orders.perSecond, 1)} orders/s`,
          `${ms(w.orders.p50)} / ${ms(w.orders.p99)}`,
          '',
        ],
        [
          `POST /fulfillments (3 lines, 10 clients, ${w.fulfillments.count})`,
          `${fmt(w.fulfillments.perSecond, 1)} fulfillments/s`,
          `${ms(w.fulfillments.p50)} / ${ms(w.fulfillments.p99)}`,
          '',
        ],
      ],
    ),
    'Statements per request (counted by a pg wrapper in a separate service process; least of 3 requests):',
    table(
      ['request', 'statements', 'without BEGIN/COMMIT'],
      w.statements.map((s) => [s.label, String(s.total), String(s.withoutTx)]),
    ),
  ].join('\n\n');
}
