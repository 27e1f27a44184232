// A quick standalone webhook check on PostgreSQL (no data tiers; `npm run bench` runs the full one in
// bench/webhooks.ts): one API process (ROLE=api) and one worker process (ROLE=worker) on a fresh,
// empty database, a receiver in this process, events written through the API (inventory
// adjustments, one inventory.updated event per row). Used to compare the worker before and after a
// change in a few minutes.
//   node bench/webhook-wake.ts        prints the numbers as JSON
//   import { run } from './webhook-wake.ts'; await run()   returns them
// Phase 1 (latency): 1-row adjustments at LATENCY_RATE/s; latency is the event's created_at (written
// inside the committing transaction, so a little before the commit) to its receipt here.
// Phase 2 (load): 10-row adjustments at LOAD_RATE events/s; the backlog (pending deliveries and the
// age of the oldest) is sampled every 200 ms, and after the writes stop, how long until it is empty.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

export interface WebhookBenchOptions {
  /** Server holding the bench database (created and dropped here). */
  adminUrl?: string;
  /** The database's name prefix. */
  databasePrefix?: string;
  latencyRate?: number;
  latencySeconds?: number;
  loadRate?: number;
  loadSeconds?: number;
  /** Extra environment for both processes (e.g. WORKER_POLL_MS). */
  env?: Record<string, string>;
  log?: (line: string) => void;
}

export interface WebhookBenchResult {
  /** The machine's 1-minute load average at the start and the end (2 cores: above 2 the numbers are squeezed). */
  loadAverage: { start: number; end: number };
  /** The first failed write's message, if any. */
  firstFailure: string | null;
  latency: { rate: number; events: number; failedWrites: number; received: number; p50Ms: number; p99Ms: number; maxMs: number };
  load: {
    offeredRate: number;
    writtenRate: number;
    /** Events committed (answered 2xx). */
    events: number;
    /** Writes that failed (e.g. 503 when the API's pool is exhausted) or were not sent (256 in flight). */
    failedWrites: number;
    skippedWrites: number;
    deliveredRate: number;
    backlogMaxEvents: number;
    /** The oldest pending delivery's age at its worst. */
    backlogMaxAgeMs: number;
    /** From the last write's answer until nothing is pending (null: not within 120 s). */
    drainMs: number | null;
  };
}

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const TOKEN = 'bench-webhooks-operator-token';

export async function run(options: WebhookBenchOptions = {}): Promise<WebhookBenchResult> {
  const adminUrl = options.adminUrl ?? process.env.BENCH_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const name = `${options.databasePrefix ?? 'wake_bench'}_${randomBytes(3).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const databaseUrl = url.toString();
  const children: ChildProcess[] = [];
  const loadStart1 = os.loadavg()[0];
  const receiver = await startReceiver();
  const db = new pg.Client({ connectionString: databaseUrl });
  try {
    const port = await freePort();
    const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', DATABASE_URL: databaseUrl, PLATFORM_ADMIN_TOKEN: TOKEN, HOST: '127.0.0.1', PORT: String(port), RATE_LIMIT_PER_MINUTE: '100000000', WEBHOOK_ALLOW_PRIVATE_URLS: 'true', SEED_DEMO: 'false', LOG_LEVEL: 'warn', ...options.env };
    children.push(spawnRole('api', env), spawnRole('worker', { ...env, PORT: '0' }));
    const base = `http://127.0.0.1:${port}`;
    await waitReady(base, children);
    await db.connect();
    const api = client(base);
    const merchant = await api('POST', '/api/platform/v1/merchants', { name: 'Webhook bench' }, TOKEN);
    const op = (method: string, p: string, body?: unknown) => api(method, `/api/platform/v1/merchants/${merchant.id}${p}`, body, TOKEN);
    const location = await op('POST', '/locations', { name: 'Main' });
    const key = (await op('POST', '/api-keys', { label: 'bench', scopes: ['products.write', 'inventory.adjust'] })).secret as string;
    await op('POST', '/webhook-endpoints', { url: receiver.url, events: ['inventory.updated'] });
    const variants: string[] = [];
    for (let p = 0; p < 20; p++) {
      const product = await api('POST', '/api/integrations/v1/products', { title: `P${p}`, variants: Array.from({ length: 10 }, (_, v) => ({ sku: `B-${p}-${v}`, price: 1 })) }, key);
      variants.push(...product.variants.map((v: { id: string }) => v.id));
    }
    let next = 0;
    const adjust = (rows: number) => {
      const adjustments = Array.from({ length: rows }, () => ({ variant_id: variants[next++ % variants.length], fulfillment_location_id: location.id, adjustment: 1 }));
      return api('POST', '/api/integrations/v1/inventory/adjustments', { adjustments }, key);
    };

    // Phase 1: latency.
    const latencyRate = options.latencyRate ?? 100;
    const latencySeconds = options.latencySeconds ?? 20;
    receiver.clear();
    const phase1 = await drive(latencyRate, latencySeconds, () => adjust(1));
    await receiver.waitFor(phase1.sent, 30_000);
    const latencies = receiver.take().map((r) => r.at - Date.parse(r.createdAt)).sort((a, b) => a - b);
    const latency = { rate: latencyRate, events: phase1.sent, failedWrites: phase1.failed, received: latencies.length, p50Ms: pct(latencies, 0.5), p99Ms: pct(latencies, 0.99), maxMs: latencies.at(-1) ?? NaN };
    log(`webhooks latency: ${JSON.stringify(latency)}`);

    // Phase 2: load.
    const loadRate = options.loadRate ?? 500;
    const loadSeconds = options.loadSeconds ?? 30;
    const backlog = { maxEvents: 0, maxAgeMs: 0 };
    const sample = async () => {
      const { rows } = await db.query<{ n: string; age: number | null }>(
        `select count(*) as n, extract(epoch from clock_timestamp() - min(created_at)) * 1000 as age from webhook_deliveries where status = 'pending'`,
      );
      const n = Number(rows[0].n);
      backlog.maxEvents = Math.max(backlog.maxEvents, n);
      backlog.maxAgeMs = Math.max(backlog.maxAgeMs, Number(rows[0].age ?? 0));
      return n;
    };
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        await sample();
        await sleep(200);
      }
    })();
    const deliveredBefore = receiver.count();
    const loadStart = Date.now();
    const phase2 = await drive(loadRate / 10, loadSeconds, () => adjust(10));
    const writesEnd = Date.now();
    let drainMs: number | null = null;
    while (Date.now() - writesEnd < 120_000) {
      if ((await sample()) === 0) {
        drainMs = Date.now() - writesEnd;
        break;
      }
      await sleep(100);
    }
    sampling = false;
    await sampler;
    const events = phase2.sent * 10;
    const deliveredAll = Date.now();
    const load = {
      offeredRate: loadRate,
      writtenRate: round(events / ((writesEnd - loadStart) / 1000)),
      events,
      failedWrites: phase2.failed,
      skippedWrites: phase2.skipped,
      deliveredRate: round((receiver.count() - deliveredBefore) / ((deliveredAll - loadStart) / 1000)),
      backlogMaxEvents: backlog.maxEvents,
      backlogMaxAgeMs: round(backlog.maxAgeMs),
      drainMs,
    };
    log(`webhooks load: ${JSON.stringify(load)}`);
    return { loadAverage: { start: round(loadStart1), end: round(os.loadavg()[0]) }, firstFailure, latency, load };
  } finally {
    await Promise.all(children.map((c) => stop(c)));
    await db.end().catch(() => {});
    await receiver.close();
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
}

/** Calls `write` `rate` times a second for `seconds`, open loop (a slow answer does not delay the next send); at most 256 in flight. */
async function drive(rate: number, seconds: number, write: () => Promise<unknown>): Promise<{ sent: number; skipped: number; failed: number }> {
  const total = Math.round(rate * seconds);
  const start = performance.now();
  const inFlight = new Set<Promise<unknown>>();
  let sent = 0;
  let skipped = 0;
  let failed = 0;
  for (let i = 0; i < total; i++) {
    const due = start + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    if (inFlight.size >= 256) {
      skipped++;
      continue;
    }
    const p: Promise<unknown> = write()
      .then(
        () => sent++,
        (err: Error) => {
          failed++;
          firstFailure ??= err.message.slice(0, 300);
        },
      )
      .finally(() => inFlight.delete(p));
    inFlight.add(p);
  }
  await Promise.all(inFlight);
  return { sent, skipped, failed };
}

function spawnRole(role: 'api' | 'worker', env: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, [path.join(ROOT, 'src/main.ts')], { cwd: ROOT, env: { ...env, ROLE: role }, stdio: ['ignore', 'ignore', 'inherit'] });
  child.on('exit', (code, signal) => {
    if (code !== 0 && signal !== 'SIGTERM') process.stderr.write(`bench ${role} process exited (${code ?? signal})\n`);
  });
  return child;
}

async function stop(child: ChildProcess) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await Promise.race([gone, sleep(20_000)]);
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}

async function waitReady(base: string, children: ChildProcess[]) {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (children.some((c) => c.exitCode !== null)) throw new Error('a bench process exited during start');
    try {
      if ((await fetch(`${base}/readyz`)).status === 200) return;
    } catch {}
    await sleep(100);
  }
  throw new Error('the API did not become ready within 60 s');
}

function client(base: string) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  return (method: string, p: string, body: unknown, token: string): Promise<any> =>
    new Promise((resolve, reject) => {
      const data = body === undefined ? undefined : JSON.stringify(body);
      const req = http.request(`${base}${p}`, { method, agent, headers: { authorization: `Bearer ${token}`, ...(data ? { 'content-type': 'application/json' } : {}) } }, (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => {
          if ((res.statusCode ?? 500) >= 300) reject(new Error(`${method} ${p}: ${res.statusCode} ${text}`));
          else resolve(JSON.parse(text).data);
        });
      });
      req.on('error', reject);
      req.end(data);
    });
}

async function startReceiver() {
  let got: { at: number; createdAt: string }[] = [];
  let total = 0;
  const waiters: (() => void)[] = [];
  const server = http.createServer((req, res) => {
    let text = '';
    req.on('data', (c) => (text += c));
    req.on('end', () => {
      const at = Date.now();
      res.writeHead(200).end();
      got.push({ at, createdAt: JSON.parse(text).created_at });
      total++;
      for (const w of waiters.splice(0)) w();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    clear: () => void (got = []),
    take: () => got.splice(0),
    count: () => total,
    async waitFor(n: number, ms: number) {
      const deadline = Date.now() + ms;
      while (got.length < n && Date.now() < deadline) await new Promise<void>((r) => waiters.push(r) && setTimeout(r, 200));
    },
    close: () => new Promise<void>((r) => server.close(() => r()) && server.closeAllConnections()),
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

let firstFailure: string | null = null;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const round = (n: number) => Math.round(n * 10) / 10;
const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? NaN;

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const result = await run();
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
}
