// What every part of the benchmark shares: the processes it starts, wrk, and the numbers it prints.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const PORT_BASE = Number(process.env.BENCH_PORT_BASE ?? 7100);
/** Ports inside BENCH_PORT_BASE .. +99. */
export const PORTS = {
  service: PORT_BASE + 1,
  baseline: PORT_BASE + 2,
  /** The baseline that also writes the request log (the gets' second ceiling). */
  baselineLog: PORT_BASE + 9,
  counted: PORT_BASE + 3,
  pglite: PORT_BASE + 4,
  /** The scale part: service and baseline on each tier at once. */
  service10k: PORT_BASE + 5,
  service1m: PORT_BASE + 6,
  baseline10k: PORT_BASE + 7,
  baseline1m: PORT_BASE + 8,
  receiver: PORT_BASE + 50,
  counter: PORT_BASE + 60,
};
export const OPERATOR_TOKEN = 'bench-operator-token';
export const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/** Seconds per wrk run (one server, one endpoint, one round). */
export const DURATION = Number(String(process.env.BENCH_DURATION ?? '4').replace(/s$/, ''));

export const log = (s: string) => console.log(s);
export const loadAverage = () =>
  os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' / ');
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface Server {
  name: string;
  proc: ChildProcess;
  url: string;
  stop: () => Promise<void>;
}

/** The service's environment for a run: rate limit out of the way, quiet logs, no demo data. */
export function serviceEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  for (const k of ['DATABASE_URL', 'DATA_DIR', 'ROLE', 'REDIS_URL', 'METRICS_PORT']) delete env[k];
  return {
    ...env,
    LOG_LEVEL: 'warn',
    LOG_FORMAT: 'json',
    SEED_DEMO: 'false',
    RATE_LIMIT_PER_MINUTE: '1000000000',
    PLATFORM_ADMIN_TOKEN: OPERATOR_TOKEN,
    ...extra,
  };
}

/** Start a process (Node 24: the one running the benchmark, unless `command` wraps it) and wait
 * until GET readyPath answers (up to 5 minutes: a new migration may build an index over the 1M tier first). */
export async function startProcess(
  name: string,
  args: string[],
  env: Record<string, string>,
  port: number | null,
  readyPath = '/readyz',
  command = process.execPath,
): Promise<Server> {
  const proc = spawn(command, args, { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  proc.stderr!.on('data', (d) => {
    stderr = (stderr + d).slice(-4000);
  });
  let exited = false;
  proc.once('exit', () => {
    exited = true;
  });
  const url = `http://127.0.0.1:${port}`;
  if (port !== null) {
    for (let i = 0; ; i++) {
      if (exited) throw new Error(`${name} exited while starting:\n${stderr}`);
      try {
        if ((await fetch(url + readyPath)).ok) break;
      } catch {}
      if (i > 3000) throw new Error(`${name} did not start within 300 s:\n${stderr}`);
      await sleep(100);
    }
  } else {
    await sleep(1500);
    if (exited) throw new Error(`${name} exited while starting:\n${stderr}`);
  }
  return {
    name,
    proc,
    url,
    stop: async () => {
      if (exited) return;
      const gone = new Promise((r) => proc.once('exit', r));
      proc.kill('SIGTERM');
      const t = setTimeout(() => proc.kill('SIGKILL'), 20_000);
      await gone;
      clearTimeout(t);
    },
  };
}

/** The V8 flags `npm start` gives the service (package.json), so the benchmark measures what runs. */
export const START_FLAGS: string[] = (() => {
  const start = (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start;
  return start.split(/\s+/).filter((word) => word.startsWith('--'));
})();

export const startService = (name: string, port: number, env: Record<string, string>, nodeArgs: string[] = []) =>
  startProcess(
    name,
    [...START_FLAGS, ...nodeArgs, 'src/main.ts'],
    serviceEnv({ PORT: String(port), HOST: '127.0.0.1', ...env }),
    env.ROLE === 'worker' ? null : port,
  );

/** The baseline (bench/baseline.ts); with `requestLog`, the one that also writes each request's log row. */
export const startBaselineProcess = (port: number, databaseUrl: string, merchantId: string, requestLog = false) =>
  startProcess(
    requestLog ? 'baseline with the request log' : 'baseline',
    ['bench/baseline.ts'],
    { ...serviceEnv({}), PORT: String(port), DATABASE_URL: databaseUrl, MERCHANT_ID: merchantId, REQUEST_LOG: requestLog ? '1' : '0' },
    port,
  );

/** Resident set now and its peak (VmHWM), in MiB. */
export function rss(pid: number): { now: number; peak: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? 0);
  return { now: Math.round(kib('VmRSS') / 1024), peak: Math.round(kib('VmHWM') / 1024) };
}

/** CPU time consumed so far (µs): one process's own (user + system) and each PostgreSQL server process's on this machine. */
export interface CpuSample {
  process: number;
  postgres: Map<number, number>;
}
const TICK_US = 1e6 / (Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100);
/** CPU time a process has used so far (µs): utime + stime of /proc/<pid>/stat; undefined when it is gone. */
export function processCpu(pid: number | string): number | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) * TICK_US;
  } catch {
    return undefined;
  }
}
export function cpuSample(pid: number): CpuSample {
  const postgres = new Map<number, number>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let comm = '';
    try {
      comm = fs.readFileSync(`/proc/${entry}/comm`, 'utf8').trim();
    } catch {
      continue;
    }
    if (comm !== 'postgres') continue;
    const t = processCpu(entry);
    if (t !== undefined) postgres.set(Number(entry), t);
  }
  return { process: processCpu(pid) ?? NaN, postgres };
}
/**
 * CPU per request between two samples (µs): the server process, and PostgreSQL (every server process
 * on this machine: backends, WAL writer, checkpointer; one that started meanwhile counts whole, one
 * that ended is lost). 0 for PostgreSQL when it runs elsewhere (BENCH_ADMIN_URL).
 */
export function cpuPerRequest(a: CpuSample, b: CpuSample, requests: number): { server: number; postgres: number } {
  let postgres = 0;
  for (const [pid, t] of b.postgres) postgres += t - (a.postgres.get(pid) ?? 0);
  return { server: (b.process - a.process) / requests, postgres: postgres / requests };
}

export interface WrkResult {
  rps: number;
  p50: number; // ms
  p99: number; // ms
  requests: number;
  errors: number; // non-2xx and socket errors
  /** CPU per request (µs) while wrk ran, where the caller measured it (bench/reads.ts). */
  cpu?: { server: number; postgres: number };
}

const toMs = (v: string | undefined) => {
  const m = /^([\d.]+)(us|ms|s|m)$/.exec(v ?? '');
  if (!m) return NaN;
  return Number(m[1]) * ({ us: 0.001, ms: 1, s: 1000, m: 60_000 } as Record<string, number>)[m[2]];
};

/** wrk -t2 -c10 (Debian's wrk) for DURATION seconds against one URL. */
export function wrk(url: string, opts: { connections?: number; seconds?: number; auth?: string; script?: string; timeoutSeconds?: number } = {}): WrkResult {
  const args = ['-t2', `-c${opts.connections ?? 10}`, `-d${opts.seconds ?? DURATION}s`, '--latency'];
  if (opts.timeoutSeconds) args.push('--timeout', `${opts.timeoutSeconds}s`);
  if (opts.auth) args.push('-H', `Authorization: Bearer ${opts.auth}`);
  if (opts.script) args.push('-s', opts.script);
  const out = execFileSync('wrk', [...args, url], { encoding: 'utf8' });
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  return {
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? NaN),
    p50: toMs(/^\s+50%\s+(\S+)/m.exec(out)?.[1]),
    p99: toMs(/^\s+99%\s+(\S+)/m.exec(out)?.[1]),
    requests: Number(/(\d+) requests in/.exec(out)?.[1] ?? 0),
    errors: Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0) + (socket ? socket.slice(1).reduce((s, x) => s + Number(x), 0) : 0),
  };
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const n = s.length;
  if (n === 0) return NaN;
  return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

export function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
}

export const fmt = (x: number, digits = 0) => (Number.isFinite(x) ? x.toFixed(digits) : '–');
export const ms = (x: number) => (Number.isFinite(x) ? (x >= 100 ? x.toFixed(0) : x.toFixed(1)) : '–');

/** A Markdown table (the README takes it as printed). */
export function table(head: string[], rows: string[][]): string {
  return [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
}

export function machine(): string {
  return `${os.cpus().length} cores (${os.cpus()[0]?.model.trim() ?? 'unknown'}), ${Math.round(os.totalmem() / 2 ** 30)} GiB, shared`;
}

/** GET a JSON body (with the bench key when auth is given). */
export async function getJson(url: string, auth?: string): Promise<{ status: number; body: any }> {
  const get = () => fetch(url, { headers: auth ? { authorization: `Bearer ${auth}` } : {} });
  // A kept-alive connection idle through the wrk rounds may be closed by the server (keep-alive
  // timeout) just as fetch reuses it: that one request is sent again on a new connection.
  const res = await get().catch((err: { cause?: { code?: string } }) => (err.cause?.code === 'UND_ERR_SOCKET' ? get() : Promise.reject(err)));
  return { status: res.status, body: await res.json() };
}

export async function callJson(method: string, url: string, body: unknown, auth: string): Promise<any> {
  const res = await fetch(url, { method, headers: { authorization: `Bearer ${auth}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const json = (await res.json()) as { data: unknown };
  if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(json)}`);
  return json.data;
}
