// Webhooks: a receiver in this process (endpoint registered through the operator API, private URLs
// allowed), inventory adjustments offered at a fixed rate (open loop), and the time from each event's
// row to its receipt. The event's created_at is taken inside the writing transaction, just before its
// commit, so "commit → receipt" is a hair less than what is measured. A sampler reads the backlog
// (pending deliveries) every 250 ms. Each phase first offers its load for WARM_SECONDS
// (BENCH_WEBHOOK_WARM_SECONDS, 3) and waits for those events; their latency is reported apart (the
// backlog's maximum covers both).
//   npm run bench -- webhooks   (runWebhooks) on a throw-away copy of the 10k tier: one process with
//                               both roles, then ROLE=api + ROLE=worker processes.
//   node bench/webhooks.ts      (runQuickWebhooks) the quick standalone check, for comparing the worker
//                               before and after a change in a few minutes: no data tier, a fresh empty
//                               database (created and dropped here), ROLE=api + ROLE=worker processes,
//                               20 products of 10 variants made through the API, then 100 events/s of
//                               1-row adjustments (latency) and 500 events/s of 10-row ones (load).
//                               `--json` prints the phases as JSON; BENCH_DATABASE_PREFIX names the
//                               database; the service's settings (e.g. WORKER_POLL_MS) pass through
//                               from the environment.
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { ADMIN_URL, LOCATIONS, MERCHANT_ID, API_KEY, TIERS, dbUrl, scratchCopy } from './data.ts';
import { OPERATOR_TOKEN, PORTS, callJson, fmt, loadAverage, log, ms, percentile, sleep, startService, table, type Server } from './common.ts';

const SECONDS = Number(process.env.BENCH_WEBHOOK_SECONDS ?? 20);
// Each phase starts with this many seconds of the same load, measured apart: the processes were just
// started, so the first events meet cold code and new connections (80-130 ms at 100 events/s and up
// to ~0.5 s at 500 in a phase's first second, single-digit ms after it). p50/p99 are the steady state.
const WARM_SECONDS = Number(process.env.BENCH_WEBHOOK_WARM_SECONDS ?? 3);
const DRAIN_LIMIT = 90;

export interface WebhookPhase {
  label: string;
  offered: number; // events/s
  accepted: number; // events/s the API took
  refused: number;
  reasons: Record<string, number>;
  delivered: number;
  expected: number;
  p50: number;
  p99: number;
  max: number;
  maxPending: number;
  maxOldestSeconds: number;
  drainedAfter: number | null; // seconds after the load stopped; null = not within DRAIN_LIMIT
  warmP99: number; // over the warm-up's events: the phase's first WARM_SECONDS (after new processes started, but for the quick check's second phase)
  warmMax: number;
}

class Receiver {
  latencies = new Map<string, number>();
  private server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = Date.now();
      try {
        const event = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: string; created_at: string };
        if (!this.latencies.has(event.id)) this.latencies.set(event.id, at - Date.parse(event.created_at));
      } catch {}
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  listen = () => new Promise<void>((r) => this.server.listen(PORTS.receiver, '127.0.0.1', () => r()));
  close = () => new Promise<void>((r) => this.server.close(() => r()));
}

/** Adjustment requests of `rows` rows at `rate` requests/s for `duration` seconds, each row a +1 on its own level. */
async function offer(base: string, key: string, pairs: [string, string][], rate: number, rows: number, duration: number) {
  let next = 0;
  let accepted = 0;
  let refused = 0;
  const reasons: Record<string, number> = {};
  const refuse = (why: string) => {
    refused++;
    reasons[why] = (reasons[why] ?? 0) + 1;
  };
  let inFlight = 0;
  const requests: Promise<void>[] = [];
  const t0 = performance.now();
  for (let sent = 0; ;) {
    const elapsed = performance.now() - t0;
    if (elapsed >= duration * 1000) break;
    for (; sent <= (elapsed / 1000) * rate; sent++) {
      if (inFlight >= 500) {
        refuse('over 500 in flight'); // the client's own limit: counted as not accepted
        continue;
      }
      const body = {
        adjustments: Array.from({ length: rows }, () => pairs[next++ % pairs.length]).map(([variant_id, fulfillment_location_id]) => ({
          variant_id,
          fulfillment_location_id,
          adjustment: 1,
        })),
      };
      inFlight++;
      requests.push(
        fetch(`${base}/api/integrations/v1/inventory/adjustments`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        })
          .then(async (res) => {
            const text = await res.text();
            if (res.status === 200) accepted++;
            else refuse(`${res.status} ${/"code":"([^"]+)"/.exec(text)?.[1] ?? ''}`.trim());
          })
          .catch((err: Error) => refuse(err.message))
          .finally(() => void inFlight--),
      );
    }
    await sleep(2);
  }
  const seconds = (performance.now() - t0) / 1000;
  await Promise.all(requests);
  return { accepted, refused, reasons, seconds };
}

async function phase(
  label: string,
  base: string,
  key: string,
  databaseUrl: string,
  receiver: Receiver,
  pairs: [string, string][],
  rate: number,
  rows: number,
): Promise<WebhookPhase> {
  const sampler = new pg.Client({ connectionString: databaseUrl });
  await sampler.connect();
  const backlog = async () =>
    (
      await sampler.query<{ pending: number; oldest: number | null }>(
        `select count(*)::int pending, extract(epoch from clock_timestamp() - min(created_at))::float8 oldest from webhook_deliveries where status = 'pending'`,
      )
    ).rows[0];
  let maxPending = 0;
  let maxOldest = 0;
  let sampling = true;
  const sampling$ = (async () => {
    while (sampling) {
      const b = await backlog();
      maxPending = Math.max(maxPending, b.pending);
      maxOldest = Math.max(maxOldest, b.oldest ?? 0);
      await sleep(250);
    }
  })();
  /** Seconds until `expected` events have arrived and none is pending (null: not within DRAIN_LIMIT). */
  const drained = async (expected: number) => {
    const stopped = performance.now();
    while ((performance.now() - stopped) / 1000 < DRAIN_LIMIT) {
      if (receiver.latencies.size >= expected && (await backlog()).pending === 0) return (performance.now() - stopped) / 1000;
      await sleep(100);
    }
    return null;
  };
  receiver.latencies.clear();
  log(`  ${label}: warming up with ${rate * rows} events/s for ${WARM_SECONDS} s (load average ${loadAverage()})`);
  const warm = await offer(base, key, pairs, rate, rows, WARM_SECONDS);
  if ((await drained(warm.accepted * rows)) === null) throw new Error(`${label}: the warm-up's events were not delivered within ${DRAIN_LIMIT} s`);
  const warmLatencies = [...receiver.latencies.values()];
  receiver.latencies.clear();
  log(`  ${label}: offering ${rate * rows} events/s for ${SECONDS} s (load average ${loadAverage()})`);
  const load = await offer(base, key, pairs, rate, rows, SECONDS);
  const expected = load.accepted * rows;
  const drainedAfter = await drained(expected);
  sampling = false;
  await sampling$;
  await sampler.end();
  const latencies = [...receiver.latencies.values()];
  return {
    label,
    offered: rate * rows,
    accepted: expected / load.seconds,
    refused: load.refused,
    reasons: load.reasons,
    delivered: receiver.latencies.size,
    expected,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    max: Math.max(...latencies),
    maxPending,
    maxOldestSeconds: maxOldest,
    drainedAfter,
    warmP99: percentile(warmLatencies, 99),
    warmMax: Math.max(...warmLatencies),
  };
}

export async function runWebhooks(): Promise<WebhookPhase[]> {
  const scratch = await scratchCopy(TIERS['10k'], 'bench_run_webhooks');
  const receiver = new Receiver();
  await receiver.listen();
  const env = { DATABASE_URL: scratch.url, WEBHOOK_ALLOW_PRIVATE_URLS: 'true' };
  const servers: Server[] = [];
  const results: WebhookPhase[] = [];
  try {
    const client = new pg.Client({ connectionString: scratch.url });
    await client.connect();
    const variants = (await client.query<{ id: string }>(`select id from variants where merchant_id = $1 order by sku`, [MERCHANT_ID])).rows.map((r) => r.id);
    await client.end();
    const pairs = LOCATIONS.flatMap((l) => variants.map((v) => [v, l] as [string, string]));
    log(`webhooks: receiver on :${PORTS.receiver}`);

    // One process with both roles (the default deployment), 100 events/s.
    const both = await startService('service (api + worker)', PORTS.service, env);
    servers.push(both);
    await callJson(
      'POST',
      `${both.url}/api/platform/v1/merchants/${MERCHANT_ID}/webhook-endpoints`,
      { url: `http://127.0.0.1:${PORTS.receiver}/hook`, events: ['inventory.updated'] },
      OPERATOR_TOKEN,
    );
    results.push(await phase('100 events/s, one process (ROLE=api,worker)', both.url, API_KEY, scratch.url, receiver, pairs, 100, 1));
    await both.stop();
    servers.length = 0;

    // One API process and one worker process, 500 events/s (100 requests/s of 5 rows).
    const api = await startService('service (api)', PORTS.service, { ...env, ROLE: 'api' });
    servers.push(api);
    servers.push(await startService('worker', PORTS.service, { ...env, ROLE: 'worker' }));
    results.push(await phase('500 events/s, ROLE=api + ROLE=worker processes', api.url, API_KEY, scratch.url, receiver, pairs, 100, 5));
  } finally {
    for (const s of servers) await s.stop();
    await receiver.close();
    await scratch.drop();
  }
  return results;
}

export async function runQuickWebhooks(): Promise<WebhookPhase[]> {
  const name = `${process.env.BENCH_DATABASE_PREFIX ?? 'bench_quick_webhooks'}_${randomBytes(3).toString('hex')}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const databaseUrl = dbUrl(name);
  const receiver = new Receiver();
  const servers: Server[] = [];
  try {
    await receiver.listen();
    const env = { DATABASE_URL: databaseUrl, WEBHOOK_ALLOW_PRIVATE_URLS: 'true' };
    const api = await startService('service (api)', PORTS.service, { ...env, ROLE: 'api' });
    servers.push(api);
    servers.push(await startService('worker', PORTS.service, { ...env, ROLE: 'worker' }));
    const merchant = await callJson('POST', `${api.url}/api/platform/v1/merchants`, { name: 'Webhook bench' }, OPERATOR_TOKEN);
    const operator = (p: string, body: unknown) => callJson('POST', `${api.url}/api/platform/v1/merchants/${merchant.id}${p}`, body, OPERATOR_TOKEN);
    const location = await operator('/locations', { name: 'Main' });
    const key = (await operator('/api-keys', { label: 'bench', scopes: ['products.write', 'inventory.adjust'] })).secret as string;
    await operator('/webhook-endpoints', { url: `http://127.0.0.1:${PORTS.receiver}/hook`, events: ['inventory.updated'] });
    const pairs: [string, string][] = [];
    for (let p = 0; p < 20; p++) {
      const product = await callJson(
        'POST',
        `${api.url}/api/integrations/v1/products`,
        { title: `P${p}`, variants: Array.from({ length: 10 }, (_, v) => ({ sku: `B-${p}-${v}`, price: 1 })) },
        key,
      );
      pairs.push(...product.variants.map((v: { id: string }) => [v.id, location.id] as [string, string]));
    }
    log(`webhooks (quick): receiver on :${PORTS.receiver}, database ${name}`);
    return [
      await phase('100 events/s of 1-row adjustments, ROLE=api + ROLE=worker', api.url, key, databaseUrl, receiver, pairs, 100, 1),
      await phase('500 events/s of 10-row adjustments, ROLE=api + ROLE=worker', api.url, key, databaseUrl, receiver, pairs, 50, 10),
    ];
  } finally {
    for (const s of servers) await s.stop();
    await receiver.close();
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
}

export function webhooksReport(phases: WebhookPhase[]): string {
  return table(
    [
      'load',
      'events/s offered / accepted',
      'delivered',
      'commit → receipt p50 / p99 / max ms',
      `warm-up (first ${WARM_SECONDS} s): p99 / max ms`,
      'backlog max: pending (s of events) / oldest s',
      'drained',
    ],
    phases.map((p) => [
      p.label,
      `${p.offered} / ${fmt(p.accepted)}${
        p.refused
          ? ` (refused: ${Object.entries(p.reasons)
              .map(([k, v]) => `${v} × ${k}`)
              .join(', ')})`
          : ''
      }`,
      `${p.delivered} of ${p.expected}`,
      `${ms(p.p50)} / ${ms(p.p99)} / ${ms(p.max)}`,
      `${ms(p.warmP99)} / ${ms(p.warmMax)}`,
      `${p.maxPending} (${fmt(p.maxPending / Math.max(p.accepted, 1), 1)} s) / ${fmt(p.maxOldestSeconds, 1)} s`,
      p.drainedAfter === null ? `no (not within ${DRAIN_LIMIT} s)` : `yes, ${fmt(p.drainedAfter, 1)} s after the load`,
    ]),
  );
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const phases = await runQuickWebhooks();
  console.log(process.argv.includes('--json') ? JSON.stringify(phases, null, 2) : webhooksReport(phases));
}
