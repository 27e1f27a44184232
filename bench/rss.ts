// Memory: the service's resident set idle and after a load, on PostgreSQL and on PGlite (the 10k
// tier loaded by the same SQL into a fresh DATA_DIR). The load is every list and get endpoint with
// wrk -t2 -c10 for RSS_SECONDS each; "peak" is the kernel's high-water mark (VmHWM). The service
// runs with the node flags of `npm start` (package.json), as deployed.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PGLITE_PARSERS, pgliteDatabase } from '../src/db/database.ts';
import { migrate } from '../src/db/migrate.ts';
import { API_KEY, TIERS, tierStatements } from './data.ts';
import { PORTS, START_FLAGS, getJson, loadAverage, log, rss, sleep, startService, table, wrk, type Server } from './common.ts';

const RSS_SECONDS = Number(process.env.BENCH_RSS_SECONDS ?? 3);
const API = '/api/integrations/v1';

export interface RssRow {
  database: string;
  idle: number;
  after: number;
  peak: number;
}

async function measure(database: string, server: Server): Promise<RssRow> {
  await sleep(2000);
  const idle = rss(server.proc.pid!).now;
  const orders = await getJson(`${server.url}${API}/orders?limit=1`, API_KEY);
  const orderId = orders.body.data[0].id as string;
  for (const path of ['/products?limit=50', '/orders?limit=50', `/orders/${orderId}`, '/inventory?limit=250', '/fulfillments?limit=50']) {
    const r = wrk(`${server.url}${API}${path}`, { auth: API_KEY, seconds: RSS_SECONDS });
    if (r.errors) log(`  ! ${database} ${path}: ${r.errors} errors`);
  }
  const after = rss(server.proc.pid!);
  return { database, idle, after: after.now, peak: after.peak };
}

/** A DATA_DIR holding the 10k tier, built by SQL like the PostgreSQL tiers. */
async function pgliteTier(): Promise<string> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-pglite-'));
  const pglite = new PGlite(path.join(dir, 'pgdata'), { parsers: PGLITE_PARSERS });
  await pglite.waitReady;
  const handle = pgliteDatabase(pglite);
  await migrate(handle.db);
  for (const statement of tierStatements(TIERS['10k'])) await pglite.exec(statement);
  await pglite.exec('vacuum analyze');
  await handle.close();
  return dir;
}

export async function runRss(postgresUrl: string, tierName: string): Promise<RssRow[]> {
  const rows: RssRow[] = [];
  log(`rss: ${RSS_SECONDS} s of each list/get endpoint per database, node ${START_FLAGS.join(' ')} src/main.ts (load average ${loadAverage()})`);
  const service = await startService('service', PORTS.service, { ROLE: 'api', DATABASE_URL: postgresUrl });
  try {
    rows.push(await measure(`PostgreSQL (${tierName} tier), ROLE=api`, service));
  } finally {
    await service.stop();
  }
  const started = Date.now();
  const dir = await pgliteTier();
  log(`  PGlite: 10k tier loaded by SQL in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  const embedded = await startService('service (PGlite)', PORTS.pglite, { DATA_DIR: dir });
  try {
    rows.push(await measure('PGlite (10k tier), one process with both roles', embedded));
  } finally {
    await embedded.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

export const rssReport = (rows: RssRow[]) =>
  table(
    ['service on', 'idle MiB', 'after the load MiB', 'peak MiB'],
    rows.map((r) => [r.database, String(r.idle), String(r.after), String(r.peak)]),
  );
