// Worker processes on one PostgreSQL: several never deliver one event twice at once, and a worker
// killed mid-batch loses nothing. PostgreSQL only (PGlite is one process).
import type { ChildProcess } from 'node:child_process';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, onPostgres, startTestApp, type TestApp, type TestMerchant } from './helpers.ts';
import { startReceiver, type Receiver } from './receiver.ts';
import { spawnQuietService } from './service-process.ts';
import { waitFor } from './wait.ts';
import { LOST_ATTEMPT } from '../src/events/worker.ts';

let t: TestApp;
let m: TestMerchant;
const children: ChildProcess[] = [];

function startWorkerProcess(): ChildProcess {
  const child = spawnQuietService({
    DATABASE_URL: t.database.url!,
    ROLE: 'worker',
    WORKER_POLL_MS: '50',
    WEBHOOK_TIMEOUT_MS: '1000',
    WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    WEBHOOK_RETRY_SCHEDULE: '1,1,1',
  });
  children.push(child);
  return child;
}

/** SIGTERM, then wait for each process to exit (a graceful stop settles what it sent first). */
async function stopProcesses(processes: ChildProcess[]) {
  const exited = (c: ChildProcess) => c.exitCode !== null || c.signalCode !== null;
  for (const c of processes) if (!exited(c)) c.kill('SIGTERM');
  await waitFor(() => processes.every(exited), { deadlineMs: 15_000, what: 'the worker processes to exit after SIGTERM' });
}

async function endpointFor(receiver: Receiver) {
  return json(await m.op('POST', '/webhook-endpoints', { url: receiver.url, events: ['inventory.updated'] }), 201, 'createWebhookEndpoint').data;
}

/** n events fanned out to the merchant's endpoints, written in bulk; each carries an inventory row as the API answers it. */
async function emitMany(n: number) {
  const db = t.database.db;
  await sql`
    with ev as (
      insert into events (merchant_id, type, location_id, payload)
      select ${m.id}::uuid, 'inventory.updated', ${m.locations[0]}::uuid, jsonb_build_object('object', jsonb_build_object(
               'id', gen_random_uuid(), 'variant_id', gen_random_uuid(), 'product_id', gen_random_uuid(), 'sku', 'SKU-' || g,
               'fulfillment_location_id', ${m.locations[0]}::uuid, 'on_hand', g, 'committed', 0, 'available', g,
               'updated_at', to_char(now() at time zone 'utc', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')))
        from generate_series(1, ${n}) g
      returning id)
    insert into webhook_deliveries (merchant_id, endpoint_id, event_id)
    select ${m.id}::uuid, e.id, ev.id from ev cross join webhook_endpoints e where e.merchant_id = ${m.id}::uuid and e.status = 'enabled'`.execute(db);
}

async function statusCounts() {
  const rows = await t.database.db
    .selectFrom('webhook_deliveries')
    .select(['status', sql<string>`count(*)`.as('n')])
    .where('merchant_id', '=', m.id)
    .groupBy('status')
    .execute();
  return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
}

describe.runIf(onPostgres())('worker processes', () => {
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
    await t?.close();
  });

  it('two worker processes draining 1,000 events deliver each exactly once', async () => {
    m = await t.merchant({ locations: 1 });
    const receiver = await startReceiver();
    try {
      await endpointFor(receiver);
      await emitMany(1000);
      const a = startWorkerProcess();
      const b = startWorkerProcess();
      await receiver.waitFor(1000, 60_000);
      await waitFor(async () => (await statusCounts()).delivered === 1000, {
        deadlineMs: 30_000,
        what: '1,000 deliveries settled as delivered',
        intervalMs: 100,
        describe: statusCounts,
      });
      // Both workers stopped (a graceful stop finishes what it sent): nothing more can arrive.
      await stopProcesses([a, b]);
      const ids = receiver.received.map((r) => r.body.id);
      expect(ids).toHaveLength(1000);
      expect(new Set(ids).size).toBe(1000);
      expect(receiver.maxConcurrentPerEvent()).toBe(1);
    } finally {
      await receiver.close();
    }
  }, 90_000);

  it('a worker killed (SIGKILL) in the middle of a batch loses nothing: after restart every event is delivered, none twice at once', async () => {
    m = await t.merchant({ locations: 1 });
    const receiver = await startReceiver();
    receiver.fallback = { status: 200, delayMs: 100 };
    try {
      await endpointFor(receiver);
      await emitMany(100);
      const first = startWorkerProcess();
      await receiver.waitFor(30, 30_000);
      first.kill('SIGKILL');
      await new Promise((r) => first.once('exit', r));
      const before = await statusCounts();
      expect(before.delivered ?? 0).toBeLessThan(100);
      startWorkerProcess();
      await waitFor(async () => (await statusCounts()).delivered === 100, {
        deadlineMs: 60_000,
        what: 'all 100 delivered after the restart',
        intervalMs: 100,
        describe: statusCounts,
      });
      const unique = new Set(receiver.received.map((r) => r.body.id));
      expect(unique.size).toBe(100);
      expect(receiver.maxConcurrentPerEvent()).toBe(1);
      // Every attempt a delivery counts is in its attempts list: one the killed worker took and never
      // recorded is logged as such when its lease runs out and the delivery is taken again.
      const { rows: counted } = await sql<{ id: string; endpoint_id: string; attempts: number; logged: number }>`
        select d.id, d.endpoint_id, d.attempts, (select count(*)::int from webhook_attempts a where a.delivery_id = d.id) as logged
          from webhook_deliveries d where d.merchant_id = ${m.id}::uuid order by d.attempts desc, d.id`.execute(t.database.db);
      expect(counted.filter((d) => d.logged !== d.attempts)).toEqual([]);
      const retried = counted[0];
      expect(retried.attempts).toBe(2);
      const attempts = json(
        await t.op('GET', `/merchants/${m.id}/webhook-endpoints/${retried.endpoint_id}/deliveries/${retried.id}/attempts`),
        200,
        'listWebhookAttempts',
      ).data;
      expect(attempts.map((a) => [a.attempt, a.status_code, a.error])).toEqual([
        [1, null, LOST_ATTEMPT],
        [2, 200, null],
      ]);
    } finally {
      await receiver.close();
    }
  }, 90_000);
});
