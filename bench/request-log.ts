// What the API request log costs on the list benchmark. Three servers, identical but for
// REQUEST_LOG_ENABLED (log on, log off, and a second log-off server: the A/A control that shows the
// noise floor, i.e. how far apart two identical servers measure in the same run), are measured in
// rotation (on, off, off2; then off, off2, on; …) so that load from other work on the machine hits
// all alike, and no server always follows the same one. Prints each round with the 1-minute load
// average, then per-round ratios (on/off and off2/off) with their median and range, and the ratio
// of mean latencies.
//   node bench/request-log.ts                      embedded PGlite (one data directory per server)
//   BENCH_DB=postgres node bench/request-log.ts    all servers on one fresh PostgreSQL database
// Settings: BENCH_ROUNDS (default 12), BENCH_DURATION (default 4s), BENCH_PORT (default 7400: it and
// the next two ports, three with BENCH_COMPARE).
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { processCpu } from './common.ts';

const PORT = Number(process.env.BENCH_PORT ?? 7400);
const TOKEN = 'bench-operator-token';
const PRODUCTS = Number(process.env.BENCH_PRODUCTS ?? 300);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 12);
const DURATION = process.env.BENCH_DURATION ?? '4s';
const postgres = process.env.BENCH_DB === 'postgres';

async function call(base: string, method: string, url: string, body: unknown, auth: string) {
  const res = await fetch(base + url, {
    method,
    headers: { authorization: `Bearer ${auth}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json()) as { data: any };
  if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(json)}`);
  return json.data;
}

interface Server {
  label: string;
  base: string;
  proc: ChildProcess;
  key?: string;
}

async function startServer(label: string, port: number, env: Record<string, string>, cwd = process.cwd()): Promise<Server> {
  const proc = spawn(process.execPath, ['src/main.ts'], {
    cwd,
    env: {
      ...process.env,
      ...env,
      PORT: String(port),
      HOST: '127.0.0.1',
      PLATFORM_ADMIN_TOKEN: TOKEN,
      LOG_LEVEL: 'warn',
      SEED_DEMO: 'false',
      RATE_LIMIT_PER_MINUTE: '100000000',
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
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

async function loadData(bases: string[]): Promise<string> {
  const base = bases[0];
  const m = await call(base, 'POST', '/api/platform/v1/merchants', { name: 'Bench' }, TOKEN);
  const key = (await call(base, 'POST', `/api/platform/v1/merchants/${m.id}/api-keys`, { label: 'bench', scopes: ['products.read', 'products.write'] }, TOKEN))
    .secret;
  for (let i = 0; i < PRODUCTS; i++) {
    await call(
      bases[i % bases.length],
      'POST',
      '/api/integrations/v1/products',
      { title: `Bench product ${i}`, variants: [0, 1, 2].map((v) => ({ sku: `B-${i}-${v}`, option1: `Size ${v}`, price: 10 + v })) },
      key,
    );
  }
  return key;
}

const ms = (v: string) => (v.endsWith('us') ? Number(v.slice(0, -2)) / 1000 : v.endsWith('ms') ? Number(v.slice(0, -2)) : Number(v.slice(0, -1)) * 1000);

// CPU time (ms) a process has used (0 once it is gone).
const cpuMs = (pid: number): number => (processCpu(pid) ?? 0) / 1000;

/**
 * The CPU a server spends per request, whatever else the machine runs: its Node process plus (on
 * PostgreSQL) the backends of its own pool, told apart by application_name. Under heavy outside
 * load latency mostly measures the scheduler; CPU per request still measures the server's work.
 */
async function cpuSnapshot(server: Server): Promise<Map<number, number>> {
  const pids = [server.proc.pid!];
  if (admin)
    pids.push(
      ...(await admin.query<{ pid: number }>('select pid from pg_stat_activity where application_name = $1', [server.label.replace(/ /g, '-')])).rows.map(
        (r) => r.pid,
      ),
    );
  return new Map(pids.map((pid) => [pid, cpuMs(pid)]));
}
const cpuSince = (before: Map<number, number>, after: Map<number, number>) => [...after].reduce((sum, [pid, ms]) => sum + ms - (before.get(pid) ?? 0), 0);

async function run(server: Server) {
  const before = await cpuSnapshot(server);
  const res = wrk(server);
  // The log writes at most FLUSH_WAIT later: wait for it, so its flush counts for this server (every server waits alike).
  await new Promise((r) => setTimeout(r, FLUSH_WAIT));
  const cpu = cpuSince(before, await cpuSnapshot(server));
  return { ...res, cpuPerRequest: cpu / res.requests };
}

function wrk(server: Server) {
  const out = execFileSync(
    'wrk',
    ['-t2', '-c10', `-d${DURATION}`, '--latency', '-H', `Authorization: Bearer ${server.key}`, `${server.base}/api/integrations/v1/products?limit=50`],
    { encoding: 'utf8' },
  );
  const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0);
  if (non2xx) throw new Error(`${server.label}: ${non2xx} non-2xx answers`);
  return {
    requests: Number(/(\d+) requests in/.exec(out)![1]),
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)![1]),
    mean: ms(/Latency\s+(\S+)/.exec(out)![1]),
    p50: ms(/^\s+50%\s+(\S+)/m.exec(out)![1]),
    p99: ms(/^\s+99%\s+(\S+)/m.exec(out)![1]),
  };
}

let cleanup = async () => {};
let admin: pg.Client | null = null;
const FLUSH_WAIT = postgres ? 1200 : 5200;
const servers: Server[] = [];
const dirs: string[] = [];
// 'log off2' is the A/A control: configured exactly like 'log off'.
// BENCH_COMPARE=<another checkout> adds a fourth server, 'other on', run from that checkout with the
// log on (e.g. the previous writer): both writers measured against the same 'log off' in one run.
const COMPARE = process.env.BENCH_COMPARE;
const CONFIGS: [label: string, enabled: string, cwd?: string][] = [
  ['log on', 'true'],
  ['log off', 'false'],
  ['log off2', 'false'],
];
if (COMPARE) CONFIGS.push(['other on', 'true', path.resolve(COMPARE)]);
try {
  if (postgres) {
    const name = `portal_bench_${randomBytes(3).toString('hex')}`;
    const client = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres' });
    admin = client;
    await client.connect();
    await client.query(`create database ${name}`);
    cleanup = async () => {
      await client.query(`drop database ${name} with (force)`);
      await client.end();
    };
    const url = `postgres://postgres@127.0.0.1:5432/${name}`;
    for (const [i, [label, enabled, cwd]] of CONFIGS.entries()) {
      servers.push(
        await startServer(label, PORT + i, { DATABASE_URL: `${url}?application_name=${label.replace(/ /g, '-')}`, REQUEST_LOG_ENABLED: enabled }, cwd),
      );
    }
    // The products are created through all servers in turn, so none is warmer than another.
    const key = await loadData(servers.map((s) => s.base));
    for (const s of servers) s.key = key;
  } else {
    for (const [i, [label, enabled, cwd]] of CONFIGS.entries()) {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-bench-'));
      dirs.push(dir);
      const s = await startServer(label, PORT + i, { DATA_DIR: dir, REQUEST_LOG_ENABLED: enabled }, cwd);
      s.key = await loadData([s.base]);
      servers.push(s);
    }
  }
  const load = () =>
    os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ');
  const loadStart = load();
  console.log(
    `\nrequest log cost: ${postgres ? 'PostgreSQL' : 'PGlite'}; GET /products?limit=50 (${PRODUCTS} products × 3 variants); wrk -t2 -c10 -d${DURATION}; ${ROUNDS} rounds, rotating; ${os.cpus().length} cores, load average ${loadStart}`,
  );
  const results: Record<string, Awaited<ReturnType<typeof run>>[]> = Object.fromEntries(CONFIGS.map(([label]) => [label, []]));
  for (const s of servers) wrk(s); // warm-up, all
  const loads: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const order = servers.map((_, i) => servers[(i + r) % servers.length]);
    for (const s of order) {
      const res = await run(s);
      results[s.label].push(res);
      console.log(
        `round ${String(r + 1).padStart(2)} ${s.label.padEnd(9)} ${res.rps.toFixed(0).padStart(6)} req/s   mean ${res.mean.toFixed(2).padStart(7)} ms   p50 ${res.p50.toFixed(2).padStart(7)} ms   p99 ${res.p99.toFixed(2).padStart(7)} ms   CPU ${res.cpuPerRequest.toFixed(3)} ms/req   load ${os.loadavg()[0].toFixed(2)}`,
      );
    }
    loads.push(os.loadavg()[0]);
  }
  const avg = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const median = (xs: number[]) => {
    const v = [...xs].sort((a, b) => a - b);
    return v.length % 2 ? v[(v.length - 1) / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
  };
  const off = results['log off'];
  console.log(
    `load average (1 min) during the rounds: ${Math.min(...loads).toFixed(2)}–${Math.max(...loads).toFixed(2)}, median ${median(loads).toFixed(2)}; at start ${loadStart}, at end ${load()}`,
  );
  // Each round's runs followed one another within seconds: their ratio is the least disturbed by outside load.
  for (const label of ['log on', 'log off2', ...(COMPARE ? ['other on'] : [])]) {
    const xs = results[label];
    const ratios = xs.map((x, i) => x.mean / off[i].mean);
    const sorted = [...ratios].sort((a, b) => a - b);
    const name = { 'log on': 'on/off', 'log off2': 'off2/off (A/A)', 'other on': `other on/off (${COMPARE})` }[label];
    console.log(
      `${name}: per-round mean-latency ratio median ${median(ratios).toFixed(3)}, range ${sorted[0].toFixed(3)}–${sorted[sorted.length - 1].toFixed(3)}, middle half ${sorted[Math.floor(sorted.length / 4)].toFixed(3)}–${sorted[Math.ceil((3 * sorted.length) / 4) - 1].toFixed(3)}; ` +
        `mean latency ${avg(xs.map((x) => x.mean)).toFixed(2)} / ${avg(off.map((x) => x.mean)).toFixed(2)} ms = ${(avg(xs.map((x) => x.mean)) / avg(off.map((x) => x.mean))).toFixed(3)}; ` +
        `p50 median ratio ${median(xs.map((x, i) => x.p50 / off[i].p50)).toFixed(3)}; throughput ratio ${(avg(xs.map((x) => x.rps)) / avg(off.map((x) => x.rps))).toFixed(3)}`,
    );
    console.log(`  rounds: ${ratios.map((r) => r.toFixed(3)).join(' ')}`);
    const cpu = xs.map((x, i) => x.cpuPerRequest / off[i].cpuPerRequest);
    const cpuSorted = [...cpu].sort((a, b) => a - b);
    console.log(
      `  CPU per request (server${postgres ? ' + its PostgreSQL backends' : ''}): per-round ratio median ${median(cpu).toFixed(3)}, range ${cpuSorted[0].toFixed(3)}–${cpuSorted[cpuSorted.length - 1].toFixed(3)}, middle half ${cpuSorted[Math.floor(cpuSorted.length / 4)].toFixed(3)}–${cpuSorted[Math.ceil((3 * cpuSorted.length) / 4) - 1].toFixed(3)}; ` +
        `${median(xs.map((x) => x.cpuPerRequest)).toFixed(3)} / ${median(off.map((x) => x.cpuPerRequest)).toFixed(3)} ms (medians)`,
    );
  }
} finally {
  for (const s of servers) {
    s.proc.kill('SIGTERM');
    await new Promise((r) => s.proc.once('exit', r));
  }
  await cleanup();
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
}
