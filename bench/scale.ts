// Scale: what a page costs at 1M rows against 10k, measured at the same moment. The service runs on
// both tiers at once (and the baseline too, as the control: its growth is the SQL's and the data's
// own), and rounds alternate 10k, 1M, 10k, 1M… per endpoint, so both tiers see the same machine.
// Cost = 1 ÷ req/s under the same wrk load; the ratio per round is rps(10k) ÷ rps(1M).
// The first page of every list, and a deep page: page 200 on the 1M tier, the deepest full page the
// 10k tier has (page 200 for orders; for the smaller lists the last page that holds `limit` rows, so
// both pages carry as many rows).
import { API_KEY, MERCHANT_ID } from './data.ts';
import { DURATION, PORTS, ROUNDS, fmt, getJson, loadAverage, log, median, startBaselineProcess, startService, table, wrk } from './common.ts';
import { deepPage } from './reads.ts';

/** Page `target`, or the deepest page before it that has a next page (so it holds `limit` rows). */
async function deepFullPage(base: string, path: string, target: number, auth?: string): Promise<[number, string]> {
  const [page, deepest] = await deepPage(base, path, target, auth);
  if (page === target || page === 1) return [page, deepest];
  const { body } = await getJson(base + deepest, auth);
  return body.meta.next_cursor ? [page, deepest] : deepPage(base, path, page - 1, auth);
}

const API = '/api/integrations/v1';
const LISTS = [`${API}/products?limit=50`, `${API}/orders?limit=50`, `${API}/inventory?limit=250`, `${API}/fulfillments?limit=50`];

export interface ScaleRow {
  label: string;
  /** Per round: rps at 10k ÷ rps at 1M (how much more a page costs at 1M). */
  service: number[];
  baseline: number[];
}

export async function runScale(urls: { '10k': string; '1m': string }): Promise<ScaleRow[]> {
  const servers = await Promise.all([
    startService('service 10k', PORTS.service10k, { ROLE: 'api', DATABASE_URL: urls['10k'] }),
    startService('service 1m', PORTS.service1m, { ROLE: 'api', DATABASE_URL: urls['1m'] }),
    startBaselineProcess(PORTS.baseline10k, urls['10k'], MERCHANT_ID),
    startBaselineProcess(PORTS.baseline1m, urls['1m'], MERCHANT_ID),
  ]);
  const [s10k, s1m, b10k, b1m] = servers;
  const rows: ScaleRow[] = [];
  try {
    log(`scale: ${LISTS.length * 2} pages × ${ROUNDS} rounds × 4 servers × ${DURATION} s (load average ${loadAverage()})`);
    for (const path of LISTS) {
      const name = `GET /${path.slice(API.length + 1)}`;
      // The deep page on each server: service 10k, service 1m, baseline 10k, baseline 1m.
      const deep = await Promise.all([
        deepFullPage(s10k.url, path, 200, API_KEY),
        deepFullPage(s1m.url, path, 200, API_KEY),
        deepFullPage(b10k.url, path, 200),
        deepFullPage(b1m.url, path, 200),
      ]);
      if (deep[0][0] !== deep[2][0] || deep[1][0] !== deep[3][0]) throw new Error(`${name}: the service and the baseline reach different pages`);
      const pages: [string, string[]][] = [
        [`${name} first page`, [path, path, path, path]],
        [`${name} page ${deep[0][0]} (10k) / page ${deep[1][0]} (1M)`, deep.map(([, p]) => p)],
      ];
      for (const [label, [p10k, p1m, q10k, q1m]] of pages) {
        for (const [url, auth] of [
          [s10k.url + p10k, API_KEY],
          [s1m.url + p1m, API_KEY],
          [b10k.url + q10k, undefined],
          [b1m.url + q1m, undefined],
        ] as const) {
          const { status } = await getJson(url, auth);
          if (status !== 200) throw new Error(`${label}: ${url} answered ${status}`);
          wrk(url, { auth, seconds: 1 }); // warm-up, not counted
        }
        const row: ScaleRow = { label, service: [], baseline: [] };
        for (let r = 0; r < ROUNDS; r++) {
          row.service.push(wrk(s10k.url + p10k, { auth: API_KEY }).rps / wrk(s1m.url + p1m, { auth: API_KEY }).rps);
          row.baseline.push(wrk(b10k.url + q10k).rps / wrk(b1m.url + q1m).rps);
        }
        log(`  ${label.padEnd(58)} 1M ÷ 10k cost: service ${fmt(median(row.service), 2)}, baseline ${fmt(median(row.baseline), 2)}`);
        rows.push(row);
      }
    }
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
  }
  return rows;
}

export function scaleReport(rows: ScaleRow[]): string {
  const cell = (xs: number[]) => `${fmt(median(xs), 2)} (${fmt(Math.min(...xs), 2)}–${fmt(Math.max(...xs), 2)})`;
  return table(
    ['page', 'service: 1M ÷ 10k cost, median (range)', 'baseline: 1M ÷ 10k cost, median (range)'],
    rows.map((r) => [r.label, cell(r.service), cell(r.baseline)]),
  );
}
