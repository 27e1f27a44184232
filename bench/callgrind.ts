// Instructions per request, per function: the service (or the baseline) under callgrind, loaded by
// wrk, with the JIT-compiled JavaScript named from V8's perf map. Counted instructions repeat where
// req/s and CPU time on a shared 2-core machine move ±10–15 %, so a change of a few thousand
// instructions in one function shows (docs/decisions.md, 2026-11-24). Needs valgrind and wrk, and
// the 1M tier (`npm run bench -- reads --tier 1m` builds it).
//   node bench/callgrind.ts [--baseline] [--path /api/integrations/v1/…] [--match REGEX] [--top 60]
//                           [--warm 60] [--seconds 40] [--rounds 2] [--port 7190] [--keep]
// Default path: GET /orders/:id of the order the benchmark's reads measure. Each round prints its total per request
// and the part of it outside the garbage collector: under valgrind (fifty times slower) a full GC
// of the whole heap lands in some rounds and not others and doubles their totals, and GC work also
// counts in the functions it interrupted: compare rounds by the part outside GC, and functions
// between rounds with little GC. Warm up on an idle machine, or longer:
// code still at its first tiers (marked ^ and + in the names; * is optimised) counts far more.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { API_KEY, MERCHANT_ID, TIERS, dbUrl, tierDatabase } from './data.ts';
import { serviceEnv, sleep, startProcess, wrk } from './common.ts';
import { benchOrderId } from './reads.ts';

const args = process.argv.slice(2);
const opt = (name: string, fallback: string) => {
  const i = args.indexOf(`--${name}`);
  return i === -1 ? fallback : args[i + 1];
};
const baseline = args.includes('--baseline');
const port = Number(opt('port', baseline ? '7191' : '7190'));
const url = dbUrl(tierDatabase(TIERS['1m']));

/** V8's perf map: code ranges in the order they were written (a later one wins where code space was reused). */
function readPerfMap(pid: number) {
  const ranges = fs
    .readFileSync(`/tmp/perf-${pid}.map`, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line, order) => {
      const [start, size, ...name] = line.split(' ');
      return { start: parseInt(start, 16), end: parseInt(start, 16) + parseInt(size, 16), name: name.join(' '), order };
    })
    .sort((a, b) => a.start - b.start);
  return (address: number): string | undefined => {
    let lo = 0;
    let hi = ranges.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (ranges[mid].start <= address) lo = mid + 1;
      else hi = mid;
    }
    let best: (typeof ranges)[number] | undefined;
    for (let i = lo - 1; i >= 0 && i >= lo - 400; i--) {
      const r = ranges[i];
      if (r.start <= address && address < r.end && (!best || r.order > best.order)) best = r;
    }
    return best?.name;
  };
}

/** Inclusive instructions per request by function, from one dump. */
function inclusive(file: string, requests: number, nameOf: (address: number) => string | undefined): Map<string, number> {
  const out = execFileSync('callgrind_annotate', ['--inclusive=yes', '--threshold=100', file], { encoding: 'utf8', maxBuffer: 1 << 30 });
  const byName = new Map<string, number>();
  for (const line of out.split('\n')) {
    const m = /^\s*([\d,]+) \(\s*[\d.]+%\)\s+(.*)$/.exec(line);
    if (!m) continue;
    const raw = m[2];
    const jit = /0x([0-9a-f]+) \[\?\?\?\]/.exec(raw);
    const name = jit ? `JS ${nameOf(parseInt(jit[1], 16)) ?? '(unnamed JIT code)'}` : raw.replace(/\s*\[.*\]$/, '').replace('???:', '');
    const count = Number(m[1].replaceAll(',', '')) / requests;
    // A function compiled more than once (several tiers) appears once per copy: keep the largest.
    byName.set(name, Math.max(byName.get(name) ?? 0, count));
  }
  return byName;
}

// V8's garbage collector, by the names of its functions: their own (exclusive) instructions,
// summed, are the dump's GC work wherever it ran (in a collection, or in incremental marking steps
// and write barriers between them). A heuristic: after a full GC V8 may also have dropped compiled
// code, which then runs at a lower tier for a while; that is not counted as GC.
const GC_FUNCTION =
  /v8::internal::.*(Heap|Scaveng|Marking|MarkCompact|Sweep|Evacuat|LiveObject|RecordMigrated|BodyDescriptor|Barrier|RememberedSet|SlotSet|FlushedBytecode|UsedInstanceSize|PagedSpace|MemoryAllocator|SizeFromMap)|heap::base::|^Builtins_RecordWrite/;

function gcSelf(file: string): number {
  const out = execFileSync('callgrind_annotate', ['--threshold=100', file], { encoding: 'utf8', maxBuffer: 1 << 30 });
  let sum = 0;
  for (const line of out.split('\n')) {
    const m = /^\s*([\d,]+) \(\s*[\d.]+%\)\s+\?\?\?:(.*)$/.exec(line);
    if (m && GC_FUNCTION.test(m[2])) sum += Number(m[1].replaceAll(',', ''));
  }
  return sum;
}

const pct = (x: number) => `${(100 * x).toFixed(1)} %`;
const target = opt('path', '') || `/api/integrations/v1/orders/${await benchOrderId(url)}`;
const match = new RegExp(opt('match', '.'));
const top = Number(opt('top', '60'));
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'callgrind-'));
const env = baseline
  ? { ...serviceEnv({}), PORT: String(port), DATABASE_URL: url, MERCHANT_ID }
  : serviceEnv({ PORT: String(port), HOST: '127.0.0.1', ROLE: 'api', DATABASE_URL: url });
// valgrind names its control pipes after HOST: callgrind_control finds them with the same value.
const server = await startProcess(
  'callgrind',
  [
    '--tool=callgrind',
    '--instr-atstart=no',
    '--smc-check=all-non-file',
    `--callgrind-out-file=${dir}/cg.out`,
    process.execPath,
    '--max-semi-space-size=16',
    '--single-threaded',
    '--perf-basic-prof-only-functions',
    baseline ? 'bench/baseline.ts' : 'src/main.ts',
  ],
  { ...env, HOST: '127.0.0.1' },
  port,
  '/readyz',
  'valgrind',
);
const pid = server.proc.pid!;
const control = (...a: string[]) => execFileSync('callgrind_control', [...a, String(pid)], { env: { ...process.env, HOST: '127.0.0.1' }, stdio: 'ignore' });
const load = (seconds: string) => {
  // Under valgrind an answer can take seconds (wrk's own timeout is 2 s, and a timeout counts as an error).
  const result = wrk(`${server.url}${target}`, { seconds: Number(seconds), auth: API_KEY, timeoutSeconds: 60 });
  if (result.errors) throw new Error(`${result.errors} errors under load`);
  return result.requests;
};
try {
  console.log(`callgrind: ${baseline ? 'baseline' : 'service'} GET ${target}, warming up ${opt('warm', '60')} s`);
  load(opt('warm', '60'));
  for (let round = 1; round <= Number(opt('rounds', '2')); round++) {
    control('-z');
    control('-i', 'on');
    const requests = load(opt('seconds', '40'));
    control('-i', 'off');
    control('-d');
    await sleep(2000);
    const counts = inclusive(`${dir}/cg.out.${round}`, requests, readPerfMap(pid));
    const total = counts.get('PROGRAM TOTALS') ?? 0;
    const gc = gcSelf(`${dir}/cg.out.${round}`) / requests;
    console.log(
      `\nround ${round}: ${requests} requests, ${Math.round(total)} instructions per request, ${Math.round(total - gc)} of them outside GC (GC ${pct(gc / total)})`,
    );
    const shown = [...counts].filter(([name]) => match.test(name)).sort((a, b) => b[1] - a[1]);
    for (const [name, n] of shown.slice(0, top)) console.log(`${String(Math.round(n)).padStart(9)}  ${name}`);
  }
} finally {
  await server.stop();
  if (args.includes('--keep')) console.log(`\ndumps kept in ${dir} (perf map /tmp/perf-${pid}.map)`);
  else {
    fs.rmSync(dir, { recursive: true, force: true });
    fs.rmSync(`/tmp/perf-${pid}.map`, { force: true });
  }
}
process.exit(0);
