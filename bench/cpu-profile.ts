// Where a request's CPU goes, the service beside the bare baseline: both run under V8's sampling
// profiler (`--cpu-prof`) while wrk loads one URL, and the samples taken during the measured run
// (its own window on the monotonic clock that V8's profile shares) are divided by the requests
// served. Printed per request, in µs of the main thread: all of it, the socket writes (the native
// write calls: the answer to the client and the statement to PostgreSQL, whose time is mostly the
// kernel's), the garbage collector, and the rest (JavaScript and what it calls) by package; then
// the service's own functions and its heaviest call paths, socket writes left out.
// Needs wrk and the 1M tier (`npm run bench -- reads --tier 1m` builds it).
//   node bench/cpu-profile.ts [--path /api/integrations/v1/…] [--seconds 15] [--warm 5] [--interval 200] [--port 7180]
// Default path: GET /orders/:id of the order the benchmark's reads measure. Sampling every
// `interval` µs costs each process about the same; compare the two, not either with `npm run bench`.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { API_KEY, MERCHANT_ID, TIERS, dbUrl, tierDatabase } from './data.ts';
import { START_FLAGS, fmt, serviceEnv, startProcess, table, wrk, type Server } from './common.ts';
import { benchOrderId } from './reads.ts';

const args = process.argv.slice(2);
const opt = (name: string, fallback: string) => {
  const i = args.indexOf(`--${name}`);
  return i === -1 ? fallback : args[i + 1];
};
const url = dbUrl(tierDatabase(TIERS['1m']));
const target = opt('path', '') || `/api/integrations/v1/orders/${await benchOrderId(url)}`;
const seconds = Number(opt('seconds', '15'));
const port = Number(opt('port', '7180'));

/** The native calls that write to a socket (V8 names them by their binding). */
const SOCKET_WRITES = new Set(['writev', 'writeUtf8String', 'writeLatin1String', 'writeBuffer', 'writeAsciiString', 'writeUcs2String']);

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** What a frame is counted under: its package, Node's module, or the project's own code. */
function owner(frame: ProfileNode['callFrame']): string {
  const { functionName, url: file } = frame;
  if (file === '') return functionName === '(garbage collector)' ? 'garbage collector' : `native (${functionName || 'anonymous'})`;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(file);
  if (pkg) return pkg[1];
  if (file.startsWith('node:'))
    return `node:${
      file
        .slice(5)
        .replace(/^internal\//, '')
        .split('/')[0]
    }`;
  if (file.includes('/src/')) return 'the service (src/)';
  if (file.includes('/bench/')) return 'the baseline (bench/)';
  return 'other';
}

const label = (frame: ProfileNode['callFrame']) =>
  `${frame.functionName || '(anonymous)'} ${frame.url
    .replace(/^file:\/\//, '')
    .replace(`${process.cwd()}/`, '')
    .replace(/^.*node_modules\//, '')}:${frame.lineNumber + 1}`;

interface Split {
  requests: number;
  /** µs per request: the main thread busy, in socket writes, in GC. */
  busy: number;
  writes: number;
  gc: number;
  /** µs per request outside socket writes, by owner of the sampled frame. */
  byOwner: Map<string, number>;
  /** µs per request, self time (socket writes left out), by function. */
  byFunction: Map<string, number>;
  /** µs per request, the service's own functions with what they call (socket writes left out). */
  inclusive: Map<string, number>;
}

function split(profile: Profile, from: number, to: number, requests: number): Split {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const s: Split = { requests, busy: 0, writes: 0, gc: 0, byOwner: new Map(), byFunction: new Map(), inclusive: new Map() };
  const add = (m: Map<string, number>, k: string, v: number) => m.set(k, (m.get(k) ?? 0) + v);
  let t = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i];
    const next = profile.timeDeltas[i + 1] ?? 0;
    if (t < from || t >= to) continue;
    const node = nodes.get(profile.samples[i])!;
    const name = node.callFrame.functionName;
    if (name === '(idle)') continue;
    const us = next / requests;
    s.busy += us;
    if (SOCKET_WRITES.has(name) && node.callFrame.url === '') {
      s.writes += us;
      continue;
    }
    if (name === '(garbage collector)') s.gc += us;
    add(s.byOwner, owner(node.callFrame), us);
    add(s.byFunction, label(node.callFrame), us);
    const seen = new Set<string>();
    for (let id: number | undefined = node.id; id !== undefined; id = parent.get(id)) {
      const frame = nodes.get(id)!.callFrame;
      if (!frame.url.includes('/src/')) continue;
      const l = label(frame);
      if (!seen.has(l)) (seen.add(l), add(s.inclusive, l, us));
    }
  }
  return s;
}

/** Starts one server under the profiler, warms it, measures, stops it (which writes the profile). */
async function profiled(name: string, start: (nodeArgs: string[]) => Promise<Server>, auth: string | undefined): Promise<Split> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cpu-profile-'));
  try {
    const server = await start(['--cpu-prof', '--cpu-prof-dir', dir, '--cpu-prof-interval', opt('interval', '200')]);
    let window: [number, number];
    let requests: number;
    try {
      const probe = await fetch(server.url + target, { headers: auth ? { authorization: `Bearer ${auth}` } : {} });
      if (probe.status !== 200) throw new Error(`${name}: GET ${target} answered ${probe.status}`);
      wrk(server.url + target, { auth, seconds: Number(opt('warm', '5')) });
      // V8's profile times are microseconds of the same monotonic clock as process.hrtime.
      const from = Number(process.hrtime.bigint() / 1000n);
      const run = wrk(server.url + target, { auth, seconds });
      window = [from, Number(process.hrtime.bigint() / 1000n)];
      requests = run.requests;
      if (run.errors) throw new Error(`${name}: ${run.errors} errors under load`);
    } finally {
      await server.stop();
    }
    const file = fs.readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
    if (!file) throw new Error(`${name}: no profile written`);
    return split(JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as Profile, window[0], window[1], requests);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const service = await profiled(
  'service',
  (nodeArgs) =>
    startProcess(
      'service',
      [...START_FLAGS, ...nodeArgs, 'src/main.ts'],
      serviceEnv({ PORT: String(port), HOST: '127.0.0.1', ROLE: 'api', DATABASE_URL: url, MERCHANT_CONCURRENCY: '10' }),
      port,
    ),
  API_KEY,
);
const baseline = await profiled(
  'baseline',
  (nodeArgs) =>
    startProcess('baseline', [...nodeArgs, 'bench/baseline.ts'], { ...serviceEnv({}), PORT: String(port + 1), DATABASE_URL: url, MERCHANT_ID }, port + 1),
  undefined,
);

const us = (x: number | undefined) => fmt(x ?? 0, 1);
console.log(`GET ${target}, ${seconds} s of wrk -t2 -c10 each, sampled every ${opt('interval', '200')} µs\n`);
console.log(
  table(
    ['µs per request (main thread)', 'service', 'baseline', 'difference'],
    [
      ['requests measured', String(service.requests), String(baseline.requests), ''],
      ['busy', us(service.busy), us(baseline.busy), us(service.busy - baseline.busy)],
      ['socket writes (native write calls)', us(service.writes), us(baseline.writes), us(service.writes - baseline.writes)],
      [
        'everything else',
        us(service.busy - service.writes),
        us(baseline.busy - baseline.writes),
        us(service.busy - service.writes - (baseline.busy - baseline.writes)),
      ],
      ['of it: garbage collector', us(service.gc), us(baseline.gc), us(service.gc - baseline.gc)],
    ],
  ),
);
const owners = [...new Set([...service.byOwner.keys(), ...baseline.byOwner.keys()])]
  .map((o) => [o, service.byOwner.get(o) ?? 0, baseline.byOwner.get(o) ?? 0] as const)
  .filter(([, a, b]) => a >= 0.5 || b >= 0.5)
  .sort((x, y) => y[1] - y[2] - (x[1] - x[2]));
console.log('\nEverything else, by where the sampled frame is (self time):\n');
console.log(
  table(
    ['owner', 'service', 'baseline', 'difference'],
    owners.map(([o, a, b]) => [o, us(a), us(b), us(a - b)]),
  ),
);
const top = (m: Map<string, number>, n: number) => [...m].sort((a, b) => b[1] - a[1]).slice(0, n);
console.log("\nThe service's heaviest functions (self time, socket writes left out):\n");
console.log(
  table(
    ['function', 'µs'],
    top(service.byFunction, 25).map(([f, v]) => [f, us(v)]),
  ),
);
console.log("\nThe service's own functions (self time):\n");
console.log(
  table(
    ['function', 'µs'],
    top(new Map([...service.byFunction].filter(([f]) => f.includes('src/'))), 25).map(([f, v]) => [f, us(v)]),
  ),
);
console.log("\nThe service's own functions with what they call (socket writes left out):\n");
console.log(
  table(
    ['function', 'µs'],
    top(service.inclusive, 25).map(([f, v]) => [f, us(v)]),
  ),
);
process.exit(0);
