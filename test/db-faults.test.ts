// Database faults with a real service process (src/main.ts) on PostgreSQL: backends terminated
// under parallel load, and the database cut off altogether (a TCP proxy between the service and
// PostgreSQL that we cut and restore, then a database that refuses connections). The process
// must stay alive, answer 503 service_unavailable while it cannot reach the database, come back
// by itself, and lose or double nothing. PostgreSQL only: PGlite is in-process.
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_URL, json, onPostgres, OPERATOR_TOKEN, startMerchantApp, type TestApp, type TestMerchant } from './helpers.ts';
import { makeProduct, WAREHOUSE, type MadeProduct } from './fixtures.ts';
import { startReceiver } from './receiver.ts';
import { waitFor } from './wait.ts';
import { postgresDatabase } from '../src/db/database.ts';

const APP_NAME = `h10f_svc_${process.pid}`;
/** The detail of a write whose connection was lost during its COMMIT (src/http/errors.ts). */
const COMMIT_UNKNOWN =
  'The database dropped the connection while the write was committing: it may have been applied. Retry with the same Idempotency-Key to get its outcome (applied once either way); without one, read the record before writing again.';

interface Service {
  url: string;
  child: ChildProcess;
  /** Everything the process wrote, for the failure message. */
  output(): string;
  exited(): boolean;
}

function startService(databaseUrl: string, env: Record<string, string> = {}): Promise<Service> {
  const url = new URL(databaseUrl);
  url.searchParams.set('application_name', APP_NAME);
  const child = spawn(process.execPath, ['src/main.ts'], {
    env: {
      ...process.env,
      DATABASE_URL: url.toString(),
      PORT: '0',
      HOST: '127.0.0.1',
      PLATFORM_ADMIN_TOKEN: OPERATOR_TOKEN,
      SEED_DEMO: 'false',
      LOG_LEVEL: 'info',
      RATE_LIMIT_PER_MINUTE: '1000000',
      WORKER_POLL_MS: '50',
      WEBHOOK_TIMEOUT_MS: '1000',
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_RETRY_SCHEDULE: '1,1,1,1,1,1,1,1',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let exited = false;
  child.on('exit', () => (exited = true));
  child.stdout!.on('data', (c: Buffer) => (out = (out + c.toString()).slice(-20_000)));
  child.stderr!.on('data', (c: Buffer) => (out = (out + c.toString()).slice(-20_000)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`service did not start: ${out}`)), 30_000);
    const poll = setInterval(() => {
      const m = /listening at (http:\/\/127\.0\.0\.1:\d+)/i.exec(out);
      if (m) {
        clearTimeout(timer);
        clearInterval(poll);
        resolve({ url: m[1], child, output: () => out, exited: () => exited });
      }
    }, 20);
    child.on('exit', (code) => {
      clearTimeout(timer);
      clearInterval(poll);
      reject(new Error(`service exited (${code}): ${out}`));
    });
  });
}

async function stopService(s: Service | undefined) {
  if (!s || s.exited()) return;
  const gone = new Promise((r) => s.child.once('exit', r));
  s.child.kill('SIGTERM');
  await gone;
}

/** waitFor (test/wait.ts) until check() is true; resolves with the milliseconds it took. */
async function until(what: string, check: () => Promise<boolean> | boolean, deadlineMs: number): Promise<number> {
  const start = Date.now();
  await waitFor(check, { deadlineMs, what, intervalMs: 25 });
  return Date.now() - start;
}

const readyz = async (base: string) => {
  try {
    return (await fetch(`${base}/readyz`)).status;
  } catch {
    return 0;
  }
};

/** Terminates the service's own backends on our own test database; answers how many. */
async function terminateServiceBackends(admin: pg.Client, database: string): Promise<number> {
  const { rows } = await admin.query(
    'select count(*) filter (where pg_terminate_backend(pid))::int as n from pg_stat_activity where datname = $1 and application_name = $2 and pid <> pg_backend_pid()',
    [database, APP_NAME],
  );
  return rows[0].n;
}

function expectUnavailableProblem(res: Response, body: { code?: string; request_id?: string; status?: number }) {
  expect(res.status).toBe(503);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
  expect(body.code).toBe('service_unavailable');
  expect(body.status).toBe(503);
  expect(body.request_id).toBe(res.headers.get('x-request-id'));
}

describe.runIf(onPostgres())('database faults with a real service process', () => {
  let t: TestApp;
  let m: TestMerchant;
  let key: string;
  let p: MadeProduct;
  let admin: pg.Client;
  let database: string;

  beforeAll(async () => {
    ({ t, m, key } = await startMerchantApp({ locations: 1, scopes: WAREHOUSE }));
    p = await makeProduct(t, m, 'Faults', [
      { sku: 'FAULT-1', price: 1 },
      { sku: 'FAULT-2', price: 1 },
    ]);
    database = new URL(t.database.url!).pathname.slice(1);
    admin = new pg.Client({ connectionString: ADMIN_URL, application_name: 'h10f_admin' });
    await admin.connect();
  });
  afterAll(async () => {
    await admin?.query(`alter database ${database} allow_connections true`).catch(() => {});
    await admin?.end();
    await t?.close();
  });

  const onHand = async (variantId: string) => json(await t.api(key, 'GET', `/inventory?variant_id=${variantId}`), 200, 'listInventory').data[0]?.on_hand ?? 0;

  it('a connection lost while the write commits answers 500 (not 503, which promises nothing was applied) saying it may have been; the same key then applies it exactly once', async () => {
    // The first adjustment with this reason has its backend terminated at its COMMIT (a deferred
    // trigger, run as the transaction commits; a sequence, so a retry is not cut again).
    await sql`create sequence cut_at_commit_seq`.execute(t.database.db);
    await sql`create function cut_at_commit() returns trigger language plpgsql as $$
      begin
        if nextval('cut_at_commit_seq') = 1 then perform pg_terminate_backend(pg_backend_pid()); end if;
        return null;
      end $$`.execute(t.database.db);
    await sql`create constraint trigger cut_at_commit after insert on inventory_ledger deferrable initially deferred
      for each row when (new.reason = 'cut at commit') execute function cut_at_commit()`.execute(t.database.db);
    try {
      const before = await onHand(p.variants[1].id);
      const body = { adjustments: [{ variant_id: p.variants[1].id, fulfillment_location_id: m.locations[0], adjustment: 1, reason: 'cut at commit' }] };
      const cut = await t.api(key, 'POST', '/inventory/adjustments', body, { 'idempotency-key': 'cut-at-commit' });
      expect(json(cut, 500, 'adjustInventory')).toMatchObject({ code: 'internal_error', detail: COMMIT_UNKNOWN });
      json(await t.api(key, 'POST', '/inventory/adjustments', body, { 'idempotency-key': 'cut-at-commit' }), 200, 'adjustInventory');
      expect(await onHand(p.variants[1].id)).toBe(before + 1);
    } finally {
      await sql`drop trigger cut_at_commit on inventory_ledger`.execute(t.database.db);
      await sql`drop function cut_at_commit()`.execute(t.database.db);
      await sql`drop sequence cut_at_commit_seq`.execute(t.database.db);
    }
  });

  it('backends terminated under parallel load: alive, only 2xx or 503 problems, readyz back within 5 s, on_hand exact', async () => {
    const svc = await startService(t.database.url!);
    const variant = p.variants[0].id;
    const statuses = new Map<number, number>();
    const unexpected: string[] = [];
    let networkErrors = 0;
    let commitCuts = 0;
    let answered = 0;
    let applied = 0;
    let stop = false;

    const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
      try {
        const res = await fetch(`${svc.url}/api/integrations/v1${path}`, {
          method,
          headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}), ...headers },
          ...(body ? { body: JSON.stringify(body) } : {}),
        });
        const parsed = await res.json();
        answered++;
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        if (res.status === 503) expectUnavailableProblem(res, parsed);
        // A backend terminated during COMMIT: the outcome is unknown, the same key settles it.
        else if (res.status === 500 && parsed.detail === COMMIT_UNKNOWN) commitCuts++;
        else if (res.status !== 200 && !(res.status === 409 && parsed.code === 'idempotency_in_progress'))
          unexpected.push(`${method} ${path}: ${res.status} ${JSON.stringify(parsed)}`);
        return res.status;
      } catch (err) {
        networkErrors++;
        unexpected.push(`${method} ${path}: ${(err as Error).message}`);
        return 0;
      }
    };

    // Each client: a read, then a +1 adjustment under its own Idempotency-Key, retried with the same
    // key until it answers 200 (a 503 or a network error says nothing was applied, or replays).
    const client = async (n: number) => {
      for (let i = 0; !stop; i++) {
        await call('GET', ['/inventory?limit=50', '/orders?limit=20', '/products?limit=10'][i % 3]);
        const idempotencyKey = `h10f-${n}-${i}-${randomUUID()}`;
        const body = { adjustments: [{ variant_id: variant, fulfillment_location_id: m.locations[0], adjustment: 1, reason: 'fault test' }] };
        for (let attempt = 0; ; attempt++) {
          if (svc.exited()) throw new Error(`the service process exited: ${svc.output()}`);
          if (attempt > 200) throw new Error(`adjustment ${idempotencyKey} never succeeded`);
          if ((await call('POST', '/inventory/adjustments', body, { 'idempotency-key': idempotencyKey })) === 200) break;
          await new Promise((r) => setTimeout(r, 20));
        }
        applied++;
      }
    };

    const before = await onHand(variant);
    const failures: Error[] = [];
    const clients = Array.from({ length: 8 }, (_, n) =>
      client(n).catch((err) => {
        stop = true;
        failures.push(err);
      }),
    );
    const cuts: { terminated: number; readyMs: number }[] = [];
    try {
      for (let cut = 0; cut < 5 && !stop; cut++) {
        // Let the load run between cuts: a number of answers, not a fixed time.
        const mark = answered;
        await until('load between cuts', () => stop || answered >= mark + 40, 20_000);
        const terminated = await terminateServiceBackends(admin, database);
        const readyMs = await until(`readyz 200 after cut ${cut + 1}`, async () => (await readyz(svc.url)) === 200, 5_000);
        expect(svc.exited(), svc.output()).toBe(false);
        cuts.push({ terminated, readyMs });
      }
    } finally {
      stop = true;
      await Promise.all(clients);
    }
    if (failures.length) throw failures[0];
    console.info(
      `backend cuts: ${JSON.stringify(cuts)}; statuses ${JSON.stringify(Object.fromEntries(statuses))}; adjustments ${applied}; cut at commit ${commitCuts}`,
    );

    expect(svc.exited(), svc.output()).toBe(false);
    expect(unexpected).toEqual([]);
    expect(networkErrors).toBe(0);
    expect(cuts.every((c) => c.terminated > 0)).toBe(true);
    expect(cuts.every((c) => c.readyMs <= 5_000)).toBe(true);
    expect(statuses.get(500) ?? 0).toBe(commitCuts);
    expect([...statuses.keys()].filter((s) => s > 500 && s !== 503)).toEqual([]);
    // Nothing lost, nothing doubled: every adjustment applied exactly once.
    expect(await onHand(variant)).toBe(before + applied);
    const keys = await t.database.db
      .selectFrom('idempotency_keys')
      .select(({ fn }) => fn.countAll<string>().as('n'))
      .where('merchant_id', '=', m.id)
      .where('key', 'like', 'h10f-%')
      .executeTakeFirstOrThrow();
    expect(Number(keys.n)).toBe(applied);
    await stopService(svc);
  }, 120_000);

  it('the database cut off (proxy cut, then connections refused): readyz 503 while out, 200 within 5 s after, worker delivers what was raised before, during and after', async () => {
    const proxy = await startProxy(5432);
    const viaProxy = new URL(t.database.url!);
    viaProxy.host = `127.0.0.1:${proxy.port}`;
    const svc = await startService(viaProxy.toString());
    const receiver = await startReceiver();
    try {
      // A merchant of its own, so the events counted are this test's.
      const m = await t.merchant({ locations: 1 });
      const key = await m.key(WAREHOUSE);
      const variant = (await makeProduct(t, m, 'Cut', [{ sku: 'CUT-1', price: 1 }])).variants[0].id;
      json(await m.op('POST', '/webhook-endpoints', { url: receiver.url, events: ['inventory.updated'] }), 201, 'createWebhookEndpoint');
      const onHand = async () => json(await t.api(key, 'GET', `/inventory?variant_id=${variant}`), 200, 'listInventory').data[0].on_hand;
      const adjust = (base: string, idempotencyKey: string) =>
        fetch(`${base}/api/integrations/v1/inventory/adjustments`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': idempotencyKey },
          body: JSON.stringify({ adjustments: [{ variant_id: variant, fulfillment_location_id: m.locations[0], adjustment: 1 }] }),
        });
      const eventIdsDelivered = () => new Set(receiver.received.map((r) => String(r.headers['x-service-webhook-id'])));
      const eventsRaised = async () =>
        (await t.database.db.selectFrom('events').select('id').where('merchant_id', '=', m.id).where('type', '=', 'inventory.updated').execute()).map(
          (e) => e.id,
        );

      // Before: one adjustment through the service, delivered.
      expect((await adjust(svc.url, 'h10f-before')).status).toBe(200);
      await until('delivery before the cut', async () => (await eventsRaised()).every((id) => eventIdsDelivered().has(id)), 10_000);

      // Cut: every connection through the proxy dropped, new ones refused.
      await proxy.cut();
      const outageMs = await until('readyz 503 during the outage', async () => (await readyz(svc.url)) === 503, 5_000);
      const during = await fetch(`${svc.url}/api/integrations/v1/inventory?variant_id=${variant}`, { headers: { authorization: `Bearer ${key}` } });
      expectUnavailableProblem(during, await during.json());
      const duringWrite = await adjust(svc.url, 'h10f-during');
      expectUnavailableProblem(duringWrite, await duringWrite.json());
      // A burst while out: each answered 503, logged as one warning with a count, no stack per
      // request (an outage under load wrote ~80 KB of identical stacks a second).
      const burst = await Promise.all(
        Array.from({ length: 20 }, () =>
          fetch(`${svc.url}/api/integrations/v1/inventory?variant_id=${variant}`, { headers: { authorization: `Bearer ${key}` } }),
        ),
      );
      expect(burst.map((r) => r.status)).toEqual(Array(20).fill(503));
      const logged = svc.output().split('\n');
      expect(logged.filter((l) => l.includes('"msg":"request failed"'))).toEqual([]);
      const warned = logged.filter((l) => l.includes('requests answered 503 (nothing applied)'));
      expect(warned.length, svc.output()).toBeGreaterThanOrEqual(1);
      expect(warned.length, svc.output()).toBeLessThanOrEqual(2);
      // An event raised meanwhile by another process that can still reach the database.
      json(
        await t.api(key, 'POST', '/inventory/adjustments', { adjustments: [{ variant_id: variant, fulfillment_location_id: m.locations[0], adjustment: 1 }] }),
        200,
        'adjustInventory',
      );
      expect(await readyz(svc.url)).toBe(503);
      expect(svc.exited(), svc.output()).toBe(false);

      await proxy.restore();
      const recoveryMs = await until('readyz 200 after restore', async () => (await readyz(svc.url)) === 200, 5_000);
      // The write refused during the outage was not applied: retried with its key, it applies now, once.
      expect((await adjust(svc.url, 'h10f-during')).status).toBe(200);
      expect((await adjust(svc.url, 'h10f-after')).status).toBe(200);
      await until('every event delivered after restore', async () => (await eventsRaised()).every((id) => eventIdsDelivered().has(id)), 15_000);
      expect(await eventsRaised()).toHaveLength(4);

      // Then the database itself refuses connections (as while PostgreSQL restarts).
      await admin.query(`alter database ${database} allow_connections false`);
      let refusedMs: number;
      try {
        await terminateServiceBackends(admin, database);
        refusedMs = await until('readyz 503 while connections are refused', async () => (await readyz(svc.url)) === 503, 5_000);
        const refused = await adjust(svc.url, 'h10f-refused');
        expectUnavailableProblem(refused, await refused.json());
      } finally {
        await admin.query(`alter database ${database} allow_connections true`);
      }
      const reopenMs = await until('readyz 200 after connections are allowed', async () => (await readyz(svc.url)) === 200, 5_000);
      expect((await adjust(svc.url, 'h10f-refused')).status).toBe(200);
      await until('the last event delivered', async () => (await eventsRaised()).every((id) => eventIdsDelivered().has(id)), 15_000);

      expect(svc.exited(), svc.output()).toBe(false);
      expect(await onHand()).toBe(5);
      // A post whose settle failed while the database was away is retried after its lease (at least once).
      const statuses = async () =>
        (await t.database.db.selectFrom('webhook_deliveries').select('status').where('merchant_id', '=', m.id).execute()).map((d) => d.status);
      await until('every delivery settled as delivered', async () => (await statuses()).filter((s) => s === 'delivered').length === 5, 20_000);
      expect(await statuses()).toEqual(Array(5).fill('delivered'));
      console.info(
        `proxy cut: readyz 503 after ${outageMs} ms, 200 ${recoveryMs} ms after restore; connections refused: 503 after ${refusedMs} ms, 200 ${reopenMs} ms after allowed`,
      );
    } finally {
      await stopService(svc);
      await receiver.close();
      await proxy.close();
    }
  }, 120_000);

  it("a session of ours left idle in a transaction (a frozen process) is ended by the server after DATABASE_QUERY_TIMEOUT_MS (it held row locks and every feed's horizon), and the pool carries on", async () => {
    const url = new URL(t.database.url!);
    const name = `h10f_idle_${process.pid}`;
    url.searchParams.set('application_name', name);
    const handle = postgresDatabase(url.toString(), 1, undefined, undefined, true, 1000);
    try {
      const held = handle.db.transaction().execute(async (trx) => {
        await sql`select pg_current_xact_id()`.execute(trx);
        await new Promise((resolve) => setTimeout(resolve, 2500)); // frozen, as far as the server can tell
        await sql`select 1`.execute(trx);
      });
      await expect(held).rejects.toThrow();
      const { rows } = await admin.query(`select count(*)::int as n from pg_stat_activity where application_name = $1 and state like 'idle in transaction%'`, [
        name,
      ]);
      expect(rows[0].n).toBe(0);
      // The pool replaced the ended session: the next statement works.
      expect((await sql<{ one: number }>`select 1 as one`.execute(handle.db)).rows).toEqual([{ one: 1 }]);
    } finally {
      await handle.close();
    }
  });

  it('a database connection that stops answering (held open, no byte passes): its request is 503 within DATABASE_QUERY_TIMEOUT_MS, the connection is dropped, and the API and the worker carry on', async () => {
    const proxy = await startProxy(5432);
    const viaProxy = new URL(t.database.url!);
    viaProxy.host = `127.0.0.1:${proxy.port}`;
    const svc = await startService(viaProxy.toString(), { DATABASE_QUERY_TIMEOUT_MS: '1000' });
    const receiver = await startReceiver();
    try {
      const m = await t.merchant({ locations: 1 });
      const key = await m.key(WAREHOUSE);
      const variant = (await makeProduct(t, m, 'Hang', [{ sku: 'HANG-1', price: 1 }])).variants[0].id;
      json(await m.op('POST', '/webhook-endpoints', { url: receiver.url, events: ['inventory.updated'] }), 201, 'createWebhookEndpoint');
      const read = () =>
        fetch(`${svc.url}/api/integrations/v1/inventory?variant_id=${variant}`, {
          headers: { authorization: `Bearer ${key}` },
          signal: AbortSignal.timeout(15_000),
        });
      const adjust = (idempotencyKey: string) =>
        fetch(`${svc.url}/api/integrations/v1/inventory/adjustments`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': idempotencyKey },
          body: JSON.stringify({ adjustments: [{ variant_id: variant, fulfillment_location_id: m.locations[0], adjustment: 1 }] }),
          signal: AbortSignal.timeout(15_000),
        });
      expect((await read()).status).toBe(200);
      expect((await adjust('hang-before')).status).toBe(200);
      await until('delivery before the hang', () => receiver.received.length === 1, 10_000);

      proxy.hang();
      const started = Date.now();
      const during = await read();
      const waitedMs = Date.now() - started;
      expectUnavailableProblem(during, await during.json());
      // At most the statement's timeout, or the pool's 5 s wait for a connection when none is free.
      expect(waitedMs).toBeLessThan(7_000);

      proxy.unhang();
      // The hung connections are gone: requests and the worker's claims get new ones.
      await until('reads answer again', async () => (await read()).status === 200, 15_000);
      expect((await adjust('hang-after')).status).toBe(200);
      await until('the event raised after the hang delivered', () => receiver.received.length === 2, 15_000);
      expect(svc.exited(), svc.output()).toBe(false);
      console.info(`hung connection: 503 after ${waitedMs} ms`);
    } finally {
      await stopService(svc);
      await receiver.close();
      await proxy.close();
    }
  }, 120_000);

  it('/readyz during a database stall (connections held, nothing answered) is 503 within ~2 s, not after the statement timeout (30 s)', async () => {
    const proxy = await startProxy(5432);
    const viaProxy = new URL(t.database.url!);
    viaProxy.host = `127.0.0.1:${proxy.port}`;
    const svc = await startService(viaProxy.toString());
    try {
      expect((await fetch(`${svc.url}/readyz`)).status).toBe(200);
      proxy.hang();
      const started = Date.now();
      const res = await fetch(`${svc.url}/readyz`, { signal: AbortSignal.timeout(15_000) });
      const waitedMs = Date.now() - started;
      expect([res.status, res.headers.get('retry-after'), (await res.json()).detail]).toEqual([
        503,
        '1',
        'The database is not reachable, did not answer within 2 s, or is not migrated.',
      ]);
      expect(waitedMs).toBeGreaterThanOrEqual(1_900);
      expect(waitedMs).toBeLessThan(5_000);
      proxy.unhang();
      await until('ready again', async () => (await fetch(`${svc.url}/readyz`)).status === 200, 40_000);
    } finally {
      await stopService(svc);
      await proxy.close();
    }
  }, 90_000);

  it('every database connection busy for longer than the pool waits: 503 saying so (it said the database was unreachable)', async () => {
    // The test app's pool holds 20 connections (test/helpers.ts); a request waits 5 s for one.
    const held = Array.from({ length: 20 }, () => sql`select pg_sleep(7)`.execute(t.database.db));
    try {
      await new Promise((r) => setTimeout(r, 300));
      const res = await t.api(key, 'GET', '/locations');
      expect([res.statusCode, res.headers['retry-after']]).toEqual([503, '1']);
      expect(JSON.parse(res.body).detail).toBe(
        'No database connection came free within 5 s: every one is busy, or the database is slow to answer; nothing was applied. Retry after `Retry-After` seconds (writes with the same Idempotency-Key).',
      );
    } finally {
      await Promise.allSettled(held);
    }
  }, 30_000);
});

/**
 * A TCP proxy on 127.0.0.1 in front of PostgreSQL that can be cut (sockets destroyed, port closed)
 * and restored, or hung: every connection open then, and every one opened while hung, stays open
 * and passes nothing, for ever (a network path that holds connections but delivers no byte).
 */
async function startProxy(targetPort: number) {
  const sockets = new Set<net.Socket>();
  const pairs = new Set<[net.Socket, net.Socket]>();
  let hung = false;
  const stall = ([inbound, outbound]: [net.Socket, net.Socket]) => {
    inbound.unpipe();
    outbound.unpipe();
    inbound.pause();
    outbound.pause();
  };
  const server = net.createServer((inbound) => {
    const outbound = net.connect(targetPort, '127.0.0.1');
    const pair: [net.Socket, net.Socket] = [inbound, outbound];
    pairs.add(pair);
    for (const s of pair) {
      sockets.add(s);
      s.on('close', () => {
        sockets.delete(s);
        pairs.delete(pair);
      });
      s.on('error', () => {
        inbound.destroy();
        outbound.destroy();
      });
    }
    if (hung) stall(pair);
    else inbound.pipe(outbound).pipe(inbound);
  });
  const listen = (port: number) => new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, '127.0.0.1', () => resolve()));
  await listen(0);
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    async cut() {
      const closed = new Promise<void>((r) => server.close(() => r()));
      for (const s of sockets) s.destroy();
      await closed;
    },
    async restore() {
      await listen(port);
    },
    hang() {
      hung = true;
      for (const pair of pairs) stall(pair);
    },
    /** New connections pass again; those that hung stay hung. */
    unhang() {
      hung = false;
    },
    async close() {
      for (const s of sockets) s.destroy();
      if (server.listening) await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
