// Benchmark: starts the service as its own process, loads a merchant with data through the public
// APIs, then drives list and write endpoints with wrk (Debian's `wrk`) from a second process.
//   node bench/run.ts                 embedded PGlite (fresh DATA_DIR)
//   BENCH_DB=postgres node bench/run.ts   a fresh database on the local PostgreSQL
// Prints requests/s and latency percentiles per endpoint, and the server's RSS.
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

const PORT = Number(process.env.BENCH_PORT ?? 3777);
const base = `http://127.0.0.1:${PORT}`;
const TOKEN = 'bench-operator-token';
const PRODUCTS = Number(process.env.BENCH_PRODUCTS ?? 300);
const ORDERS = Number(process.env.BENCH_ORDERS ?? 300);
const DURATION = process.env.BENCH_DURATION ?? '10s';

async function call(method: string, url: string, body: unknown, auth: string) {
  const res = await fetch(base + url, {
    method,
    headers: { authorization: `Bearer ${auth}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json()) as { data: any };
  if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(json)}`);
  return json.data;
}

const env: Record<string, string> = { ...process.env, PORT: String(PORT), PLATFORM_ADMIN_TOKEN: TOKEN, LOG_LEVEL: 'warn', SEED_DEMO: 'false', RATE_LIMIT_PER_MINUTE: '100000000' } as never;
let cleanup = async () => {};
if (process.env.BENCH_DB === 'postgres') {
  const name = `mia_bench_${randomBytes(3).toString('hex')}`;
  const admin = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres' });
  await admin.connect();
  await admin.query(`create database ${name}`);
  env.DATABASE_URL = `postgres://postgres@127.0.0.1:5432/${name}`;
  cleanup = async () => {
    await admin.query(`drop database ${name} with (force)`);
    await admin.end();
  };
} else {
  env.DATA_DIR = fs.mkdtempSync(path.join(os.tmpdir(), 'mia-bench-'));
}

const server = spawn(process.execPath, ['src/main.ts'], { env, stdio: ['ignore', 'inherit', 'inherit'] });
for (let i = 0; ; i++) {
  try {
    if ((await fetch(`${base}/readyz`)).ok) break;
  } catch {}
  if (i > 100) throw new Error('server did not start');
  await new Promise((r) => setTimeout(r, 200));
}

try {
  const m = await call('POST', '/api/platform/v1/merchants', { name: 'Bench' }, TOKEN);
  const loc = await call('POST', `/api/platform/v1/merchants/${m.id}/locations`, { name: 'Main' }, TOKEN);
  const key = (await call('POST', `/api/platform/v1/merchants/${m.id}/api-keys`, { label: 'bench', scopes: ['products.read', 'products.write', 'orders.read', 'inventory.read', 'inventory.adjust', 'fulfillments.read'] }, TOKEN)).secret;
  const variants: string[] = [];
  for (let i = 0; i < PRODUCTS; i++) {
    const p = await call('POST', '/api/integrations/v1/products', {
      title: `Bench product ${i}`,
      variants: [0, 1, 2].map((v) => ({ sku: `B-${i}-${v}`, option1: `Size ${v}`, price: 10 + v })),
    }, key);
    variants.push(...p.variants.map((v: { id: string }) => v.id));
  }
  await call('POST', '/api/integrations/v1/inventory/adjustments', { adjustments: variants.slice(0, 100).map((id) => ({ variant_id: id, fulfillment_location_id: loc.id, adjustment: 1000 })) }, key);
  for (let i = 0; i < ORDERS; i++) {
    await call('POST', `/api/platform/v1/merchants/${m.id}/orders`, {
      fulfillment_location_id: loc.id,
      line_items: [{ variant_id: variants[i % 100], quantity: 1 }, { variant_id: variants[(i + 1) % 100], quantity: 2 }],
    }, TOKEN);
  }

  const lua = path.join(os.tmpdir(), 'mia-bench-adjust.lua');
  fs.writeFileSync(lua, `wrk.method = "POST"\nwrk.headers["Content-Type"] = "application/json"\nwrk.body = '${JSON.stringify({ adjustments: [{ variant_id: variants[0], fulfillment_location_id: loc.id, adjustment: 1 }] })}'\n`);
  const targets: [string, string[]][] = [
    ['GET /products?limit=50', [`${base}/api/integrations/v1/products?limit=50`]],
    ['GET /orders?limit=50', [`${base}/api/integrations/v1/orders?limit=50`]],
    ['GET /inventory?limit=250', [`${base}/api/integrations/v1/inventory?limit=250`]],
    ['POST /inventory/adjustments', ['-s', lua, `${base}/api/integrations/v1/inventory/adjustments`]],
  ];
  console.log(`\ndatabase: ${env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'}; ${PRODUCTS} products × 3 variants, ${ORDERS} orders; wrk -t2 -c10 -d${DURATION}`);
  for (const [label, args] of targets) {
    const out = execFileSync('wrk', ['-t2', '-c10', `-d${DURATION}`, '--latency', '-H', `Authorization: Bearer ${key}`, ...args], { encoding: 'utf8' });
    const rps = /Requests\/sec:\s+([\d.]+)/.exec(out)?.[1];
    const p50 = /^\s+50%\s+(\S+)/m.exec(out)?.[1];
    const p99 = /^\s+99%\s+(\S+)/m.exec(out)?.[1];
    const non2xx = /Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? '0';
    console.log(`${label.padEnd(30)} ${rps?.padStart(9)} req/s   p50 ${p50}   p99 ${p99}   non-2xx ${non2xx}`);
  }
  const rss = execFileSync('ps', ['-o', 'rss=', '-p', String(server.pid)], { encoding: 'utf8' }).trim();
  console.log(`server RSS after the run: ${Math.round(Number(rss) / 1024)} MiB`);
} finally {
  server.kill('SIGTERM');
  await new Promise((r) => server.once('exit', r));
  await cleanup();
}
