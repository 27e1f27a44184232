// Reads: the service and the baseline side by side on one tier, every endpoint in interleaved
// rounds (service, baseline, service, baseline…) with wrk -t2 -c10, so both see the same machine.
import { isDeepStrictEqual } from 'node:util';
import pg from 'pg';
import { API_KEY, MERCHANT_ID, type Tier } from './data.ts';
import {
  DURATION,
  PORTS,
  ROUNDS,
  fmt,
  getJson,
  loadAverage,
  log,
  median,
  ms,
  rss,
  startBaselineProcess,
  startService,
  table,
  wrk,
  cpuPerRequest,
  cpuSample,
  type Server,
  type WrkResult,
} from './common.ts';

const API = '/api/integrations/v1';

interface Endpoint {
  label: string;
  /** Path and query on the service; the baseline's differs only in its cursor. */
  service: string;
  baseline: string;
  /** A get: also measured against the baseline that writes the request log's row. */
  get?: boolean;
}

export interface ReadRow {
  tier: string;
  label: string;
  service: WrkResult[];
  baseline: WrkResult[];
  ratios: number[];
  shape: string;
  /** Gets: the baseline that also writes each request's log row, and the ratios against it. */
  baselineLog?: WrkResult[];
  logRatios?: number[];
}

export interface ReadsResult {
  rows: ReadRow[];
  rss: { tier: string; serviceIdle: number; serviceAfter: number; servicePeak: number; baselineIdle: number; baselineAfter: number }[];
}

/** wrk against one server, with the CPU it and PostgreSQL spent per request meanwhile. */
function measured(server: Server, path: string): WrkResult {
  const before = cpuSample(server.proc.pid!);
  const result = wrk(server.url + path, { auth: API_KEY });
  return { ...result, cpu: cpuPerRequest(before, cpuSample(server.proc.pid!), result.requests) };
}

/** The median over the rounds of one part of their CPU per request (µs), formatted. */
const cpuMedian = (xs: WrkResult[], part: (c: NonNullable<WrkResult['cpu']>) => number) => fmt(median(xs.map((x) => part(x.cpu!))));
const allCpu = (c: NonNullable<WrkResult['cpu']>) => c.server + c.postgres;

/** Follow next_cursor from page 1 until page `target` (or the last page); returns [page, path]. */
export async function deepPage(base: string, path: string, target: number, auth?: string): Promise<[number, string]> {
  let current = path;
  for (let page = 1; page < target; page++) {
    const { status, body } = await getJson(base + current, auth);
    if (status !== 200) throw new Error(`GET ${current}: ${status} ${JSON.stringify(body).slice(0, 300)}`);
    if (!body.meta.next_cursor) return [page, current];
    current = `${path}&cursor=${encodeURIComponent(body.meta.next_cursor)}`;
  }
  return [target, current];
}

/** Where two answers differ ('' when they have the same data and paging). */
function compare(a: any, b: any): string {
  if (!isDeepStrictEqual(a.data, b.data)) {
    const first = (x: unknown) => JSON.stringify(Array.isArray(x) ? x[0] : x)?.slice(0, 400);
    return `data differs: service ${first(a.data)} / baseline ${first(b.data)}`;
  }
  if (a.meta || b.meta) {
    if (a.meta?.limit !== b.meta?.limit || (a.meta?.next_cursor === null) !== (b.meta?.next_cursor === null)) return 'meta differs';
  }
  return '';
}

/** The order whose GET /orders/:id the benchmark measures (bench/callgrind.ts counts the same one). */
export async function benchOrderId(databaseUrl: string): Promise<string> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query(`select id from orders where merchant_id = $1 and order_number = 1005`, [MERCHANT_ID])).rows[0].id as string;
  } finally {
    await client.end();
  }
}

async function endpoints(tier: Tier, service: string, baseline: string, databaseUrl: string, full: boolean): Promise<Endpoint[]> {
  const orderId = await benchOrderId(databaseUrl);
  const out: Endpoint[] = [];
  const lists: [string, string][] = [
    ['products', `${API}/products?limit=50`],
    ['orders', `${API}/orders?limit=50`],
    ['inventory', `${API}/inventory?limit=250`],
    ['fulfillments', `${API}/fulfillments?limit=50`],
  ];
  for (const [name, path] of lists) {
    out.push({ label: `GET /${path.slice(API.length + 1)}`, service: path, baseline: path });
    const [page, servicePath] = await deepPage(service, path, 200, API_KEY);
    const [basePage, baselinePath] = await deepPage(baseline, path, 200);
    if (page !== basePage) throw new Error(`${name}: the service has ${page} pages, the baseline ${basePage}`);
    if (page > 1) out.push({ label: `GET /${path.slice(API.length + 1)} page ${page}`, service: servicePath, baseline: baselinePath });
  }
  if (full) {
    out.push({ label: 'GET /orders/:id', service: `${API}/orders/${orderId}`, baseline: `${API}/orders/${orderId}`, get: true });
    const sku = `BENCH-${String(Math.ceil(tier.products * 1.5)).padStart(6, '0')}`;
    out.push({ label: `GET /inventory?sku=${sku}`, service: `${API}/inventory?sku=${sku}`, baseline: `${API}/inventory?sku=${sku}`, get: true });
    for (const path of [`${API}/orders?status=cancelled&limit=50`, `${API}/fulfillments?status=cancelled&limit=50`]) {
      out.push({ label: `GET /${path.slice(API.length + 1)}`, service: path, baseline: path });
    }
  }
  return out;
}

/** One tier: start both servers, check shapes, run the rounds. `full` adds the get and the filters. */
export async function runReads(tier: Tier, databaseUrl: string, full: boolean): Promise<ReadsResult> {
  // The merchant's share of the process (MERCHANT_CONCURRENCY) as wide as wrk's ten connections, so
  // the service and the baseline serve at the same concurrency. With the default 5, half of the
  // requests wait their merchant's turn, as designed for one merchant sending more than 5 at once:
  // `GET /orders/:id` 0.60 of the baseline against 0.65 with 10, lists within the rounds' spread
  // (docs/decisions.md, "Each merchant's share of an API process"). Writes keep the default.
  const service = await startService('service', PORTS.service, { ROLE: 'api', DATABASE_URL: databaseUrl, MERCHANT_CONCURRENCY: '10' });
  const baseline = await startBaselineProcess(PORTS.baseline, databaseUrl, MERCHANT_ID);
  // The gets' second ceiling: the bare handler writing each request's log row as the service does.
  const baselineLog = full ? await startBaselineProcess(PORTS.baselineLog, databaseUrl, MERCHANT_ID, true) : null;
  const result: ReadsResult = { rows: [], rss: [] };
  try {
    const serviceIdle = rss(service.proc.pid!).now;
    const baselineIdle = rss(baseline.proc.pid!).now;
    const list = await endpoints(tier, service.url, baseline.url, databaseUrl, full);
    log(`reads ${tier.name}: ${list.length} endpoints × ${ROUNDS} rounds × 2 servers × ${DURATION} s (load average ${loadAverage()})`);
    for (const e of list) {
      const a = await getJson(service.url + e.service, API_KEY);
      const b = await getJson(baseline.url + e.baseline);
      if (a.status !== 200 || b.status !== 200)
        throw new Error(`${e.label}: service ${a.status}, baseline ${b.status}: ${JSON.stringify(a.body).slice(0, 300)}`);
      const shape = compare(a.body, b.body);
      if (shape) log(`  ! ${e.label}: ${shape}`);
      const row: ReadRow = { tier: tier.name, label: e.label, service: [], baseline: [], ratios: [], shape: shape ? 'differs' : 'same' };
      const logged = e.get && baselineLog ? baselineLog : null;
      if (logged) Object.assign(row, { baselineLog: [], logRatios: [] });
      // Warm-up (not counted): JIT, plan caches and the pools' connections.
      wrk(service.url + e.service, { auth: API_KEY, seconds: 1 });
      wrk(baseline.url + e.baseline, { auth: API_KEY, seconds: 1 });
      if (logged) wrk(logged.url + e.baseline, { auth: API_KEY, seconds: 1 });
      for (let r = 0; r < ROUNDS; r++) {
        const s = measured(service, e.service);
        const b = measured(baseline, e.baseline);
        row.service.push(s);
        row.baseline.push(b);
        row.ratios.push(s.rps / b.rps);
        if (logged) {
          const l = measured(logged, e.baseline);
          row.baselineLog!.push(l);
          row.logRatios!.push(s.rps / l.rps);
        }
      }
      log(
        `  ${e.label.padEnd(44)} ${fmt(median(row.service.map((x) => x.rps))).padStart(6)} / ${fmt(median(row.baseline.map((x) => x.rps))).padStart(6)} req/s  ratio ${fmt(median(row.ratios), 2)}  CPU ${cpuMedian(row.service, allCpu)} / ${cpuMedian(row.baseline, allCpu)} µs/request`,
      );
      result.rows.push(row);
    }
    const after = rss(service.proc.pid!);
    result.rss.push({
      tier: tier.name,
      serviceIdle,
      serviceAfter: after.now,
      servicePeak: after.peak,
      baselineIdle,
      baselineAfter: rss(baseline.proc.pid!).now,
    });
  } finally {
    await service.stop();
    await baseline.stop();
    await baselineLog?.stop();
  }
  return result;
}

// Each figure is its own median over the rounds, so the two parts need not add up to the total.
const cpu = (xs: WrkResult[]) => `${cpuMedian(xs, allCpu)} (${cpuMedian(xs, (c) => c.server)} + ${cpuMedian(xs, (c) => c.postgres)})`;
/** Per-round ratios as "median (min–max)". */
const ratioRange = (ratios: number[]) => `${fmt(median(ratios), 2)} (${fmt(Math.min(...ratios), 2)}–${fmt(Math.max(...ratios), 2)})`;

/** The gets against the baseline that also writes each request's log row (the service writes it). */
export function getsWithLogTable(rows: ReadRow[]): string {
  const logged = rows.filter((r) => r.baselineLog);
  return table(
    [
      'tier',
      'endpoint',
      'service req/s',
      'baseline with the log req/s',
      'ratio: median (range)',
      'its CPU µs/request: all (Node + PostgreSQL)',
      'ratio to the bare baseline',
    ],
    logged.map((r) => [
      r.tier,
      r.label,
      fmt(median(r.service.map((x) => x.rps))),
      fmt(median(r.baselineLog!.map((x) => x.rps))),
      ratioRange(r.logRatios!),
      cpu(r.baselineLog!),
      fmt(median(r.ratios), 2),
    ]),
  );
}

export function readsTable(rows: ReadRow[]): string {
  const mid = (xs: WrkResult[], k: 'rps' | 'p50' | 'p99') => median(xs.map((x) => x[k]));
  return table(
    [
      'tier',
      'endpoint',
      'service req/s',
      'service p50 / p99 ms',
      'baseline req/s',
      'baseline p50 / p99 ms',
      'ratio: median (range)',
      'service CPU µs/request: all (Node + PostgreSQL)',
      'baseline CPU µs/request',
      'errors',
    ],
    rows.map((r) => [
      r.tier,
      r.label + (r.shape === 'same' ? '' : ' (shape differs!)'),
      fmt(mid(r.service, 'rps')),
      `${ms(mid(r.service, 'p50'))} / ${ms(mid(r.service, 'p99'))}`,
      fmt(mid(r.baseline, 'rps')),
      `${ms(mid(r.baseline, 'p50'))} / ${ms(mid(r.baseline, 'p99'))}`,
      ratioRange(r.ratios),
      cpu(r.service),
      cpu(r.baseline),
      String(r.service.reduce((s, x) => s + x.errors, 0) + r.baseline.reduce((s, x) => s + x.errors, 0)),
    ]),
  );
}
