// The benchmark (issue 14): the service against its ceiling, in one run, on the local PostgreSQL.
//   npm run bench                          everything (reads on both tiers, scale, writes, webhooks, RSS)
//   npm run bench -- reads                 only the reads; also: writes, webhooks, rss (any mix)
//   npm run bench -- reads --tier 1m       one tier for the reads (10k or 1m; default both)
//   npm run bench -- scale                 a page's cost at 1M against 10k, both tiers at once
//   npm run bench -- --rebuild             build the data databases again
// Settings: BENCH_ROUNDS (3), BENCH_DURATION (seconds per wrk run, 4), BENCH_PORT_BASE (7100),
// BENCH_ADMIN_URL (postgres://postgres@127.0.0.1:5432/postgres). See README "Benchmark".
import { execFileSync } from 'node:child_process';
import { TIERS, ensureTier, type Tier } from './data.ts';
import { DURATION, ROUNDS, fmt, loadAverage, log, machine, table } from './common.ts';
import { getsWithLogTable, readsTable, runReads, type ReadRow } from './reads.ts';
import { runWrites, writesReport } from './writes.ts';
import { runWebhooks, webhooksReport } from './webhooks.ts';
import { rssReport, runRss } from './rss.ts';
import { runScale, scaleReport } from './scale.ts';

const PARTS = ['reads', 'scale', 'writes', 'webhooks', 'rss'] as const;
type Part = (typeof PARTS)[number];

function options(argv: string[]) {
  const parts = new Set<Part>();
  const tiers = new Set<Tier['name']>();
  let rebuild = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if ((PARTS as readonly string[]).includes(a)) parts.add(a as Part);
    else if (a === '--rebuild') rebuild = true;
    else if (a === '--tier' && (argv[i + 1] === '10k' || argv[i + 1] === '1m')) tiers.add(argv[++i] as Tier['name']);
    else if (a.startsWith('--tier=') && (a.slice(7) === '10k' || a.slice(7) === '1m')) tiers.add(a.slice(7) as Tier['name']);
    else throw new Error(`unknown option "${a}": use ${PARTS.join(', ')}, --tier 10k|1m, --rebuild`);
  }
  return { parts: parts.size ? parts : new Set(PARTS), tiers: tiers.size ? [...tiers] : (['10k', '1m'] as const), rebuild };
}

try {
  execFileSync('wrk', ['--version'], { stdio: 'ignore' });
} catch (err) {
  // wrk --version exits 1 after printing its version; only a missing binary is fatal.
  if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
    console.error('wrk is not installed: apt-get install wrk (Debian), then run again.');
    process.exit(1);
  }
}

const opts = options(process.argv.slice(2));
let commit = 'unknown commit';
try {
  commit = execFileSync('git', ['log', '-1', '--format=%h %s'], { encoding: 'utf8' }).trim();
} catch {}
const started = Date.now();
const startLoad = loadAverage();
log(
  `benchmark ${new Date().toISOString()} at ${commit}; ${machine()}; load average ${startLoad}; parts: ${[...opts.parts].join(', ')}; rounds ${ROUNDS} × ${DURATION} s`,
);

const urls = new Map<Tier['name'], string>();
const tierUrl = async (name: Tier['name']) => {
  if (!urls.has(name)) urls.set(name, await ensureTier(TIERS[name], opts.rebuild, log));
  return urls.get(name)!;
};

const report: string[] = [];

if (opts.parts.has('reads')) {
  const rows: ReadRow[] = [];
  const rssRows: string[][] = [];
  // The 1M tier gets every endpoint; the 10k tier the list pages (what "page 200 at 1M vs 10k" needs).
  for (const name of opts.tiers) {
    const r = await runReads(TIERS[name], await tierUrl(name), name === '1m' || opts.tiers.length === 1);
    rows.push(...r.rows);
    for (const x of r.rss) rssRows.push([x.tier, `${x.serviceIdle} → ${x.serviceAfter} (peak ${x.servicePeak})`, `${x.baselineIdle} → ${x.baselineAfter}`]);
  }
  report.push(
    `### Reads (wrk -t2 -c10, ${ROUNDS} rounds × ${DURATION} s per server, interleaved; ratio = service ÷ baseline req/s per round)\n\n${readsTable(rows)}`,
  );
  if (rows.some((r) => r.baselineLog)) {
    report.push(
      `The gets against a baseline that also writes each request's row to the request log (bench/baseline.ts with REQUEST_LOG=1, the service's own writer), in the same rounds:\n\n${getsWithLogTable(rows)}`,
    );
  }
  report.push(`RSS during the reads (MiB, idle → after):\n\n${table(['tier', 'service', 'baseline'], rssRows)}`);
}

if (opts.parts.has('scale')) {
  const both = { '10k': await tierUrl('10k'), '1m': await tierUrl('1m') };
  report.push(
    `### Scale (a page's cost at 1M rows ÷ at 10k; both tiers served at once, rounds alternating, wrk -t2 -c10, ${ROUNDS} rounds × ${DURATION} s)\n\n${scaleReport(await runScale(both))}`,
  );
}

if (opts.parts.has('writes')) {
  await tierUrl('10k');
  report.push(`### Writes (PostgreSQL, a copy of the 10k tier)\n\n${writesReport(await runWrites())}`);
}

if (opts.parts.has('webhooks')) {
  await tierUrl('10k');
  report.push(`### Webhooks (PostgreSQL, a copy of the 10k tier; receiver in the benchmark process)\n\n${webhooksReport(await runWebhooks())}`);
}

if (opts.parts.has('rss')) {
  const name = opts.tiers.includes('1m') ? '1m' : '10k';
  report.push(`### Memory (service RSS; wrk on each list/get endpoint)\n\n${rssReport(await runRss(await tierUrl(name), name))}`);
}

log(
  `\n## Results (${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, commit ${commit.split(' ')[0]}, ${machine()}, load average at start ${startLoad}, at end ${loadAverage()}, ${fmt((Date.now() - started) / 60000, 1)} min)\n`,
);
log(report.join('\n\n'));
