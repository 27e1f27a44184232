// What the API request log costs on the list benchmark. Two servers, identical but for
// REQUEST_LOG_ENABLED, are measured in alternation (on, off, on, off, …) so that load from other
// work on the machine hits both alike; prints each round and the mean latency ratio.
//   node bench/request-log.ts                      embedded PGlite (one data directory per server)
//   BENCH_DB=postgres node bench/request-log.ts    both servers on one fresh PostgreSQL database
// BENCH_AA=1 (PGlite) runs both servers with the log off: the difference between two identical servers.
// Settings: BENCH_ROUNDS (default 8), BENCH_DURATION (default 5s), BENCH_PORT (default 4350).
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

const PORT = Number(process.env.BENCH_PORT ?? 4350);
const TOKEN = 'bench-operator-token';
const PRODUCTS = Number(process.env.BENCH_PRODUCTS ?? 300);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 8);
const DURATION = process.env.BENCH_DURATION ?? '5s';
const postgres = process.env.BENCH_DB === 'postgres';

async function call(base: string, method: string, url: string, body: unknown, auth: string) {
  const res = await fetch(base + url, { method, headers: { authorization: `Bearer ${auth}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  const json = (await res.json()) as { data: any };
  if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(json)}`);
  return json.data;
}

interface Server { label: string; base: string; proc: ChildProcess; key?: string }

async function startServer(label: string, port: number, env: Record<string, string>): Promise<Server> {
  const proc = spawn(process.execPath, ['src/main.ts'], { env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1', PLATFORM_ADMIN_TOKEN: TOKEN, LOG_LEVEL: 'warn', SEED_DEMO: 'false', RATE_LIMIT_PER_MINUTE: '100000000' }, stdio: ['ignore', 'inherit', 'inherit'] });
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${base}/readyz`)).ok) break;
    } catch {}
    if (i > 150) throw new Error(`${label} did not start`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return { label, base, proc };
}

async function loadData(base: string): Promise<string> {
  const m = await call(base, 'POST', '/api/platform/v1/merchants', { name: 'Bench' }, TOKEN);
  const key = (await call(base, 'POST', `/api/platform/v1/merchants/${m.id}/api-keys`, { label: 'bench', scopes: ['products.read', 'products.write'] }, TOKEN)).secret;
  for (let i = 0; i < PRODUCTS; i++) {
    await call(base, 'POST', '/api/integrations/v1/products', { title: `Bench product ${i}`, variants: [0, 1, 2].map((v) => ({ sku: `B-${i}-${v}`, option1: `Size ${v}`, price: 10 + v })) }, key);
  }
  return key;
}

const ms = (v: string) => (v.endsWith('us') ? Number(v.slice(0, -2)) / 1000 : v.endsWith('ms') ? Number(v.slice(0, -2)) : Number(v.slice(0, -1)) * 1000);

function wrk(server: Server) {
  const out = execFileSync('wrk', ['-t2', '-c10', `-d${DURATION}`, '--latency', '-H', `Authorization: Bearer ${server.key}`, `${server.base}/api/integrations/v1/products?limit=50`], { encoding: 'utf8' });
  const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0);
  if (non2xx) throw new Error(`${server.label}: ${non2xx} non-2xx answers`);
  return {
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)![1]),
    mean: ms(/Latency\s+(\S+)/.exec(out)![1]),
    p50: ms(/^\s+50%\s+(\S+)/m.exec(out)![1]),
    p99: ms(/^\s+99%\s+(\S+)/m.exec(out)![1]),
  };
}

let cleanup = async () => {};
const servers: Server[] = [];
try {
  if (postgres) {
    const name = `h15_bench_${randomBytes(3).toString('hex')}`;
    const admin = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres' });
    await admin.connect();
    await admin.query(`create database ${name}`);
    cleanup = async () => {
      await admin.query(`drop database ${name} with (force)`);
      await admin.end();
    };
    const url = `postgres://postgres@127.0.0.1:5432/${name}`;
    servers.push(await startServer('log on', PORT, { DATABASE_URL: url, REQUEST_LOG_ENABLED: 'true' }));
    servers.push(await startServer('log off', PORT + 1, { DATABASE_URL: url, REQUEST_LOG_ENABLED: 'false' }));
    const key = await loadData(servers[0].base);
    for (const s of servers) s.key = key;
  } else {
    // BENCH_AA=1: both servers with the log off, to see how much two identical servers differ.
    const first = process.env.BENCH_AA ? 'false' : 'true';
    for (const [label, enabled, port] of [['log on', first, PORT], ['log off', 'false', PORT + 1]] as const) {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'h15-bench-'));
      const s = await startServer(label, port, { DATA_DIR: dir, REQUEST_LOG_ENABLED: enabled });
      s.key = await loadData(s.base);
      servers.push(s);
    }
  }
  console.log(`\nrequest log cost: ${postgres ? 'PostgreSQL' : 'PGlite'}; GET /products?limit=50 (${PRODUCTS} products × 3 variants); wrk -t2 -c10 -d${DURATION}; ${ROUNDS} rounds, alternating`);
  const results: Record<string, ReturnType<typeof wrk>[]> = { 'log on': [], 'log off': [] };
  wrk(servers[0]); // warm-up, both
  wrk(servers[1]);
  for (let r = 0; r < ROUNDS; r++) {
    // Alternate which goes first, so neither always follows the other.
    for (const s of r % 2 ? [servers[1], servers[0]] : servers) {
      const res = wrk(s);
      results[s.label].push(res);
      console.log(`round ${r + 1} ${s.label.padEnd(8)} ${res.rps.toFixed(0).padStart(6)} req/s   mean ${res.mean.toFixed(2)} ms   p50 ${res.p50.toFixed(2)} ms   p99 ${res.p99.toFixed(2)} ms`);
    }
  }
  const avg = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const on = results['log on'];
  const off = results['log off'];
  console.log(`mean latency: on ${avg(on.map((x) => x.mean)).toFixed(2)} ms, off ${avg(off.map((x) => x.mean)).toFixed(2)} ms → on/off ${(avg(on.map((x) => x.mean)) / avg(off.map((x) => x.mean))).toFixed(3)}`);
  console.log(`p50: on/off ${(avg(on.map((x) => x.p50)) / avg(off.map((x) => x.p50))).toFixed(3)}; throughput: on/off ${(avg(on.map((x) => x.rps)) / avg(off.map((x) => x.rps))).toFixed(3)}`);
  // Each round's on and off ran back to back: their ratio is the least disturbed by outside load.
  const ratios = on.map((x, i) => x.mean / off[i].mean).sort((a, b) => a - b);
  const median = ratios.length % 2 ? ratios[(ratios.length - 1) / 2] : (ratios[ratios.length / 2 - 1] + ratios[ratios.length / 2]) / 2;
  console.log(`per-round mean-latency ratios on/off: ${ratios.map((r) => r.toFixed(3)).join(' ')} → median ${median.toFixed(3)}`);
} finally {
  for (const s of servers) {
    s.proc.kill('SIGTERM');
    await new Promise((r) => s.proc.once('exit', r));
  }
  await cleanup();
}
