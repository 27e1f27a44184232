// The production topology, as real processes: two API processes (ROLE=api) on two ports and two
// webhook workers (ROLE=worker) on one PostgreSQL and one Redis. Requests alternate between the
// API processes; everything that must be shared is. PostgreSQL only (PGlite is one process).
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onPostgres, OPERATOR_TOKEN, testDatabase, type TestDatabase } from './helpers.ts';
import { startReceiver, type Receiver } from './receiver.ts';
import { spawnService, stopServices } from './service-process.ts';
import { waitFor } from './wait.ts';

const REDIS_URL = process.env.REDIS_TEST_URL ?? 'redis://127.0.0.1:6379';
// A key prefix of this run's own, so parallel runs and other suites never share counts.
const PREFIX = `h16:topology:${process.pid}:${randomBytes(4).toString('hex')}:`;
const RATE = 20;

interface Started {
  child: ChildProcess;
  /** The first match of `ready` in the process's output. */
  match: RegExpExecArray;
}

const children: ChildProcess[] = [];

function start(role: 'api' | 'worker', databaseUrl: string, ready: RegExp): Promise<Started> {
  const child = spawnService(role, databaseUrl, {
    REDIS_URL,
    REDIS_KEY_PREFIX: PREFIX,
    ...(role === 'worker' ? { METRICS_PORT: '0', WORKER_POLL_MS: '50', WEBHOOK_RETRY_SCHEDULE: '1,1,1' } : {}),
    RATE_LIMIT_PER_MINUTE: String(RATE),
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`${role} process did not start within 60 s: ${out}`)), 60_000);
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const match = ready.exec(out);
      if (match) {
        clearTimeout(timer);
        child.stdout!.off('data', onData);
        child.stdout!.resume();
        resolve({ child, match });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
    child.on('exit', (code) => reject(new Error(`${role} process exited (${code}): ${out}`)));
  });
}

describe.runIf(onPostgres())('two API processes and two workers on one PostgreSQL and Redis', () => {
  let database: TestDatabase;
  let api: string[] = [];
  let workerMetrics: string[] = [];
  let receiver: Receiver;
  let merchantId: string;
  let locationId: string;

  const call = (base: string, method: string, path: string, opts: { key?: string; body?: unknown; headers?: Record<string, string> } = {}) =>
    fetch(`${base}${path}`, {
      method,
      headers: {
        ...(opts.key ? { authorization: `Bearer ${opts.key}` } : {}),
        ...(opts.body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...opts.headers,
      },
      body: opts.body !== undefined ? JSON.stringify(opts.body) : undefined,
    });
  const op = async (base: string, method: string, path: string, body?: unknown) => {
    const res = await call(base, method, `/api/platform/v1/merchants/${merchantId}${path}`, { body, headers: { authorization: `Bearer ${OPERATOR_TOKEN}` } });
    return { status: res.status, body: await res.json() };
  };
  const newKey = async (scopes: string[]) => (await op(api[0], 'POST', '/api-keys', { label: 'topology', scopes })).body.data;

  beforeAll(async () => {
    database = await testDatabase();
    const [a, b, w1, w2] = await Promise.all([
      start('api', database.url!, /listening at (http:\/\/127\.0\.0\.1:\d+)/),
      start('api', database.url!, /listening at (http:\/\/127\.0\.0\.1:\d+)/),
      start('worker', database.url!, /"metrics":"(http:\/\/localhost:\d+\/metrics)"/),
      start('worker', database.url!, /"metrics":"(http:\/\/localhost:\d+\/metrics)"/),
    ]);
    api = [a.match[1], b.match[1]];
    workerMetrics = [w1.match[1], w2.match[1]].map((u) => u.replace('localhost', '127.0.0.1')); // METRICS_PORT listens on HOST
    receiver = await startReceiver();
    const res = await call(api[0], 'POST', '/api/platform/v1/merchants', {
      body: { name: 'Topology' },
      headers: { authorization: `Bearer ${OPERATOR_TOKEN}` },
    });
    merchantId = (await res.json()).data.id;
    locationId = (await op(api[1], 'POST', '/locations', { name: 'Main' })).body.data.id;
  }, 120_000);

  afterAll(async () => {
    await stopServices(children);
    await receiver?.close();
    await database?.close();
    const redis = new Redis(REDIS_URL);
    const keys = await redis.keys(`${PREFIX}*`);
    if (keys.length) await redis.del(...keys);
    await redis.quit();
  });

  it('both API processes are ready and the workers serve their metrics', async () => {
    for (const base of api) expect([(await call(base, 'GET', '/readyz')).status, (await call(base, 'GET', '/healthz')).status]).toEqual([200, 200]);
    for (const url of workerMetrics) expect((await fetch(url)).status).toBe(200);
  });

  it('a key has one rate budget across both processes', async () => {
    const key = (await newKey(['orders.read'])).secret;
    const remaining: number[] = [];
    for (let i = 0; i < RATE; i++) {
      const res = await call(api[i % 2], 'GET', '/api/integrations/v1/locations', { key });
      expect(res.status).toBe(200);
      remaining.push(Number(/r=(\d+)/.exec(res.headers.get('ratelimit') ?? '')?.[1]));
    }
    expect(remaining).toEqual(Array.from({ length: RATE }, (_, i) => RATE - 1 - i));
    for (const base of api) {
      const res = await call(base, 'GET', '/api/integrations/v1/locations', { key });
      expect([res.status, (await res.json()).code]).toEqual([429, 'rate_limited']);
    }
  });

  it('an idempotent write retried on the other process replays the stored answer', async () => {
    const key = (await newKey(['inventory.adjust', 'inventory.read', 'products.write'])).secret;
    const created = await call(api[0], 'POST', '/api/integrations/v1/products', {
      key,
      body: { title: 'Topology tee', variants: [{ sku: 'TOPO-1', price: 5 }] },
    });
    expect(created.status).toBe(201);
    const product = await created.json();
    const variantId = product.data.variants[0].id;
    const body = { adjustments: [{ variant_id: variantId, fulfillment_location_id: locationId, adjustment: 7 }] };
    const first = await call(api[0], 'POST', '/api/integrations/v1/inventory/adjustments', { key, body, headers: { 'idempotency-key': 'topo-1' } });
    const retry = await call(api[1], 'POST', '/api/integrations/v1/inventory/adjustments', { key, body, headers: { 'idempotency-key': 'topo-1' } });
    expect([first.status, retry.status, first.headers.get('idempotent-replayed'), retry.headers.get('idempotent-replayed')]).toEqual([200, 200, null, 'true']);
    expect(await retry.json()).toEqual(await first.json());
    const rows = await (await call(api[1], 'GET', `/api/integrations/v1/inventory?variant_id=${variantId}`, { key })).json();
    expect(rows.data.map((r: { on_hand: number }) => r.on_hand)).toEqual([7]);
  });

  it('a key revoked through one process is refused by the other at once', async () => {
    const key = await newKey(['orders.read']);
    expect((await call(api[1], 'GET', '/api/integrations/v1/orders', { key: key.secret })).status).toBe(200);
    expect((await op(api[0], 'DELETE', `/api-keys/${key.id}`)).status).toBe(200);
    const res = await call(api[1], 'GET', '/api/integrations/v1/orders', { key: key.secret });
    expect([res.status, (await res.json()).detail]).toEqual([401, 'This API key has been revoked.']);
  });

  it('a portal session works on both processes, and the sign-in throttle counts across them', async () => {
    expect((await op(api[0], 'POST', '/users', { email: 'ops@topology.test', password: 'correct horse battery' })).status).toBe(201);
    const login = await call(api[0], 'POST', '/portal/api/login', { body: { email: 'ops@topology.test', password: 'correct horse battery' } });
    expect(login.status).toBe(200);
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0];
    const csrf = (await login.json()).data.csrf_token;
    const session = await call(api[1], 'GET', '/portal/api/session', { headers: { cookie } });
    expect([session.status, (await session.json()).data.user.email]).toEqual([200, 'ops@topology.test']);
    const created = await call(api[1], 'POST', '/portal/api/api-keys', {
      body: { label: 'from B', scopes: ['orders.read'] },
      headers: { cookie, 'x-csrf-token': csrf },
    });
    expect(created.status).toBe(201);

    // Five failures spread over both processes, then the sixth attempt is refused on either, even with the right password.
    expect((await op(api[0], 'POST', '/users', { email: 'target@topology.test', password: 'the right password' })).status).toBe(201);
    for (let i = 0; i < 5; i++) {
      expect((await call(api[i % 2], 'POST', '/portal/api/login', { body: { email: 'target@topology.test', password: `wrong ${i}` } })).status).toBe(401);
    }
    for (const base of api) {
      const res = await call(base, 'POST', '/portal/api/login', { body: { email: 'target@topology.test', password: 'the right password' } });
      expect([res.status, (await res.json()).code]).toEqual([429, 'rate_limited']);
    }
  });

  it('events written through both processes are delivered exactly once by the two workers', async () => {
    const endpoint = await op(api[0], 'POST', '/webhook-endpoints', { url: receiver.url, events: ['inventory.updated', 'order.created'] });
    expect(endpoint.status).toBe(201);
    const key = (await newKey(['inventory.adjust', 'products.write'])).secret;
    const product = await (
      await call(api[1], 'POST', '/api/integrations/v1/products', { key, body: { title: 'Fan-out', variants: [{ sku: 'FAN-1', price: 1 }] } })
    ).json();
    const variantId = product.data.variants[0].id;
    const writes = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        call(api[i % 2], 'POST', '/api/integrations/v1/inventory/adjustments', {
          key,
          body: { adjustments: [{ variant_id: variantId, fulfillment_location_id: locationId, adjustment: 1 }] },
        }),
      ),
    );
    expect(writes.map((w) => w.status)).toEqual(Array(16).fill(200));
    for (let i = 0; i < 4; i++) {
      expect(
        (await op(api[i % 2], 'POST', '/orders', { fulfillment_location_id: locationId, line_items: [{ variant_id: variantId, quantity: 1 }] })).status,
      ).toBe(201);
    }
    const expected = Number(
      (await sql<{ n: string }>`select count(*) as n from webhook_deliveries where merchant_id = ${merchantId}::uuid`.execute(database.db)).rows[0].n,
    );
    expect(expected).toBeGreaterThanOrEqual(16 + 4); // 16 adjustments, 4 orders, and each order's inventory.updated
    await receiver.waitFor(expected, 60_000);
    const settled = async () =>
      Number(
        (
          await sql<{ n: string }>`select count(*) as n from webhook_deliveries where merchant_id = ${merchantId}::uuid and status = 'delivered'`.execute(
            database.db,
          )
        ).rows[0].n,
      );
    await waitFor(async () => (await settled()) === expected, {
      deadlineMs: 30_000,
      what: `all ${expected} deliveries settled as delivered`,
      intervalMs: 100,
      describe: settled,
    });
    const ids = receiver.received.map((r) => r.body.id);
    expect(ids).toHaveLength(expected);
    expect(new Set(ids).size).toBe(expected);
    expect(receiver.maxConcurrentPerEvent()).toBe(1);

    // The workers' own counters add up to the same number.
    let delivered = 0;
    for (const url of workerMetrics) {
      const text = await (await fetch(url)).text();
      delivered += Number(/^mia_webhook_delivery_attempts_total\{outcome="delivered"\} (\d+)$/m.exec(text)?.[1] ?? 0);
    }
    expect(delivered).toBe(expected);
  }, 90_000);
});
