// The warehouse connector when things go wrong around it, against a real server over HTTP: a feed
// position past the retention, orders fulfilled in part by someone else, fulfillment keys the API
// already knows with another body, a second connector's tracking for the same fulfillment, an API
// that is not up yet when it starts, a crash mid-write.
// Each test has a merchant and a data directory of its own; no webhook endpoint: the connector
// finds its work through the feed and the open-orders list (`reconcile`).
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type Client, type Fulfillment, type Order } from 'merchant-integration-sdk';
import { startLiveServer, stockedProduct, waitFor, type LiveServer } from '../../../test/live-server.ts';
import { WAREHOUSE } from '../../../test/fixtures.ts';
import { startConnector, type Connector, type ConnectorOptions } from '../src/connector.ts';
import { StateStore, type ConnectorState } from '../src/store.ts';
import { fulfillmentKey, trackingKey } from '../src/shipment.ts';
import { TestWarehouse } from './test-warehouse.ts';

let server: LiveServer;
const dirs: string[] = [];
const running: Connector[] = [];

function scratchDir(): string {
  const dir = path.resolve('.tmp', `connector-recovery-${process.pid}-${randomBytes(3).toString('hex')}`);
  dirs.push(dir);
  return dir;
}

beforeAll(async () => {
  server = await startLiveServer();
});
afterAll(async () => {
  for (const c of running) await c.stop().catch(() => {});
  await server?.close();
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

/** A merchant with one warehouse location, a Warehouse key restricted to it, a stocked mug, and a connector to start. */
async function shop() {
  const merchant = await server.merchant(`Recovery ${randomBytes(3).toString('hex')}`, ['Warehouse A']);
  const [A] = merchant.locations;
  const admin = createClient({ baseUrl: server.baseUrl, apiKey: await merchant.key('admin', [...WAREHOUSE, 'products.write']), fetch: server.fetch });
  const warehouseKey = await merchant.key('warehouse A', WAREHOUSE, [A]);
  const [mug] = await stockedProduct(admin, 'Mug', [{ sku: `MUG-${randomBytes(3).toString('hex')}`, price: 8 }], [[A, [100]]]);
  const dataDir = scratchDir();
  const logs: string[] = [];
  const warehouse = new TestWarehouse();
  return {
    merchantId: merchant.id,
    A,
    admin,
    warehouseKey,
    dataDir,
    logs,
    warehouse,
    placeOrder: (quantity: number) =>
      server.operator<Order>('POST', `/merchants/${merchant.id}/orders`, { fulfillment_location_id: A, line_items: [{ variant_id: mug, quantity }] }, 201),
    options: (extra: Partial<ConnectorOptions> = {}): ConnectorOptions => ({
      baseUrl: server.baseUrl,
      apiKey: warehouseKey,
      signingSecrets: ['whsec_unused'],
      dataDir,
      warehouse,
      reconcileIntervalMs: 3_600_000,
      pollIntervalMs: 100,
      retryDelayMs: 100,
      log: (message, fields) => logs.push(`${message} ${JSON.stringify(fields ?? {})}`),
      ...extra,
      client: { fetch: server.fetch, ...extra.client },
    }),
    state: (): ConnectorState => stateIn(dataDir),
  };
}

function stateIn(dataDir: string): ConnectorState {
  return JSON.parse(fs.readFileSync(path.join(dataDir, 'connector-state.json'), 'utf8'));
}

/** server.fetch, recording the Idempotency-Key of every tracking sent. */
function trackingRecorder(keys: (string | null)[], inner: typeof fetch = server.fetch): typeof fetch {
  return (input, init) => {
    if (init?.method === 'POST' && String(input).endsWith('/tracking')) keys.push(new Headers(init.headers).get('idempotency-key'));
    return inner(input, init);
  };
}

async function start(options: ConnectorOptions): Promise<Connector> {
  const connector = await startConnector(options);
  running.push(connector);
  return connector;
}

async function fulfillmentsOf(admin: Client, orderId: string): Promise<Fulfillment[]> {
  const out: Fulfillment[] = [];
  for await (const f of admin.paginate('listFulfillments', { limit: 250 })) if (f.merchant_order_id === orderId) out.push(f);
  return out;
}

/** The order's fulfillments once one of them is shipped (the connector's: nobody else ships). */
const shippedFor = (admin: Client, orderId: string) =>
  waitFor(async () => ((await fulfillmentsOf(admin, orderId)).some((f) => f.status === 'shipped') ? fulfillmentsOf(admin, orderId) : undefined), {
    deadlineMs: 10_000,
    what: `a shipped fulfillment of ${orderId}`,
  });

const onlyQuantities = (fs_: Fulfillment[]) => fs_.map((f) => [f.status, f.items.map((i) => i.quantity)]);

describe('warehouse connector recovery', () => {
  it('a feed position past the retention (410) is forgotten: backfill from the open orders, then the feed from its start', async () => {
    const s = await shop();
    const first = await start(s.options());
    const early = await s.placeOrder(1);
    await first.reconcile();
    await shippedFor(s.admin, early.id);
    await first.stop();
    const expired = s.state().feed_position;
    expect(expired).not.toBeNull();

    // Down for longer than the retention: every event so far is 31 days old (the merchant older still).
    const db = server.t.database.db;
    await db
      .updateTable('merchants')
      .set({ created_at: sql`clock_timestamp() - interval '40 days'` })
      .where('id', '=', s.merchantId)
      .execute();
    await db
      .updateTable('events')
      .set({ created_at: sql`clock_timestamp() - interval '31 days'` })
      .where('merchant_id', '=', s.merchantId)
      .execute();
    const missed = await s.placeOrder(2);

    // It crashed here: "ApiError: listEvents: 410 cursor_expired" out of startConnector.
    const connector = await start(s.options());
    const list = await shippedFor(s.admin, missed.id);
    expect(onlyQuantities(list)).toEqual([['shipped', [2]]]);
    expect(s.logs.filter((l) => l.startsWith('feed position expired'))).toHaveLength(1);
    // Following the feed again: the position is the new feed's, and the next catch-up is not refused.
    const position = s.state().feed_position;
    expect(position).not.toBeNull();
    expect(position).not.toBe(expired);
    await connector.reconcile();
    expect(s.logs.filter((l) => l.startsWith('feed position expired'))).toHaveLength(1);
    await connector.stop();
  });

  it('an order partly fulfilled elsewhere after its event was written ships what is left, not the event copy', async () => {
    const s = await shop();
    // A first run that leaves a feed position behind (an order event to stand on).
    const first = await start(s.options());
    const earlier = await s.placeOrder(1);
    await first.reconcile();
    await shippedFor(s.admin, earlier.id);
    await first.stop();
    expect(s.state().feed_position).not.toBeNull();
    // While it is down: an order of 3 (order.created says 3 to fulfil), of which someone ships 1.
    const order = await s.placeOrder(3);
    await s.admin.createFulfillment({ body: { merchant_order_id: order.id, items: [{ merchant_order_item_id: order.line_items[0].id, quantity: 1 }] } });

    // The catch-up queues the order from its order.created copy; it was skipped: "exceeds the fulfillable quantity (2)".
    const connector = await start(s.options());
    const list = await shippedFor(s.admin, order.id);
    expect(onlyQuantities(list)).toEqual([
      ['pending', [1]],
      ['shipped', [2]],
    ]);
    expect(s.logs.filter((l) => l.startsWith('order skipped'))).toEqual([]);
    await connector.stop();
  });

  it('refused for its quantities (someone fulfilled part first), it reads the order again and ships what is left', async () => {
    const s = await shop();
    const order = await s.placeOrder(3);
    // Someone else fulfils 1 between the connector's read and its create.
    let raced = false;
    const racing: typeof fetch = async (input, init) => {
      if (!raced && init?.method === 'POST' && String(input).endsWith('/fulfillments')) {
        raced = true;
        await s.admin.createFulfillment({ body: { merchant_order_id: order.id, items: [{ merchant_order_item_id: order.line_items[0].id, quantity: 1 }] } });
      }
      return server.fetch(input, init);
    };
    const connector = await start(s.options({ client: { fetch: racing } }));
    const list = await shippedFor(s.admin, order.id);
    expect(onlyQuantities(list)).toEqual([
      ['pending', [1]],
      ['shipped', [2]],
    ]);
    expect(s.logs.filter((l) => l.startsWith('fulfillment refused; reading the order again'))).toHaveLength(1);
    expect(s.logs.filter((l) => l.startsWith('order skipped'))).toEqual([]);
    await connector.stop();
  });

  it('a fulfillment key the API holds with another body (a state from a run that used one key per order) does not block the order', async () => {
    const s = await shop();
    const order = await s.placeOrder(2);
    const line = order.line_items[0].id;
    // The old key got a stored 422 for a copy of the order that asked too much.
    const warehouseApi = createClient({ baseUrl: server.baseUrl, apiKey: s.warehouseKey, fetch: server.fetch });
    const legacy = `wc-fulfil-${order.id}`;
    await expect(
      warehouseApi.createFulfillment(
        { body: { merchant_order_id: order.id, items: [{ merchant_order_item_id: line, quantity: 3 }] } },
        { idempotencyKey: legacy },
      ),
    ).rejects.toMatchObject({ status: 422, code: 'validation_failed' });
    const state: ConnectorState = {
      version: 1,
      events: {},
      movements: {},
      feed_position: null,
      orders: {
        [order.id]: {
          order_id: order.id,
          order_number: order.order_number,
          state: 'to_ship',
          fulfillment_key: legacy,
          items: [{ merchant_order_item_id: line, quantity: 2 }],
          fulfillment_id: null,
          tracking_key: `wc-track-${order.id}`,
          tracking: null,
          skipped_reason: null,
          updated_at: new Date().toISOString(),
        },
      },
    };
    fs.mkdirSync(s.dataDir, { recursive: true });
    fs.writeFileSync(path.join(s.dataDir, 'connector-state.json'), JSON.stringify(state));

    // It retried "422 idempotency_key_reused" every retryDelayMs for ever.
    const connector = await start(s.options());
    const list = await shippedFor(s.admin, order.id);
    expect(onlyQuantities(list)).toEqual([['shipped', [2]]]);
    expect(s.state().orders[order.id]).toMatchObject({
      state: 'shipped',
      fulfillment_key: fulfillmentKey(order.id, [{ merchant_order_item_id: line, quantity: 2 }]),
    });
    await connector.stop();
  });

  it('a key refused again with the same lines after a fresh read ends that order (logged), never retried for ever', async () => {
    const s = await shop();
    const order = await s.placeOrder(3);
    const line = order.line_items[0].id;
    // Someone used the key of "2 units" for a fulfillment of 1: the order now has 2 to fulfil, and that key holds another body.
    const collision = fulfillmentKey(order.id, [{ merchant_order_item_id: line, quantity: 2 }]);
    const warehouseApi = createClient({ baseUrl: server.baseUrl, apiKey: s.warehouseKey, fetch: server.fetch });
    await warehouseApi.createFulfillment(
      { body: { merchant_order_id: order.id, items: [{ merchant_order_item_id: line, quantity: 1 }] } },
      { idempotencyKey: collision },
    );
    let posts = 0;
    const counting: typeof fetch = (input, init) => {
      if (init?.method === 'POST' && String(input).endsWith('/fulfillments')) posts++;
      return server.fetch(input, init);
    };
    const connector = await start(s.options({ client: { fetch: counting } }));
    const work = await waitFor(() => (s.state().orders[order.id]?.state === 'skipped' ? s.state().orders[order.id] : undefined), {
      deadlineMs: 10_000,
      what: 'the order skipped',
    });
    expect(work.skipped_reason).toContain(collision);
    // Several retry delays later: still the one refused call.
    await new Promise((r) => setTimeout(r, 600));
    await connector.idle();
    expect(posts).toBe(1);
    expect(s.logs.filter((l) => l.startsWith('order skipped'))).toHaveLength(1);
    await connector.stop();
  });

  it("a second connector's other tracking number for the same fulfillment gets its own key and is attached, not refused as idempotency_key_reused", async () => {
    const s = await shop();
    const order = await s.placeOrder(2);
    // Both connectors queue the open order; the first one's create waits until the second has shipped it.
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const firstKeys: (string | null)[] = [];
    const holding: typeof fetch = async (input, init) => {
      if (init?.method === 'POST' && String(input).endsWith('/fulfillments')) await held;
      return server.fetch(input, init);
    };
    const first = await start(s.options({ client: { fetch: trackingRecorder(firstKeys, holding) } }));
    const otherDir = scratchDir();
    const otherWarehouse = new TestWarehouse('XP');
    const secondKeys: (string | null)[] = [];
    const second = await start(s.options({ dataDir: otherDir, warehouse: otherWarehouse, client: { fetch: trackingRecorder(secondKeys) } }));
    await waitFor(() => stateIn(otherDir).orders[order.id]?.state === 'shipped', { deadlineMs: 10_000, what: 'the second connector shipped' });

    // The same lines: the first one's create replays the second's fulfillment; its warehouse answers another tracking.
    release();
    const refusedOrShipped = () => s.logs.some((l) => l.includes('idempotency_key_reused')) || s.state().orders[order.id]?.state === 'shipped';
    await waitFor(refusedOrShipped, { deadlineMs: 10_000, what: 'the first connector shipped, or refused' });
    expect(s.logs.filter((l) => l.includes('idempotency_key_reused'))).toEqual([]);
    expect(s.state().orders[order.id]?.state).toBe('shipped');

    const list = await fulfillmentsOf(s.admin, order.id);
    expect(list).toHaveLength(1);
    const [fulfillment] = list;
    // The API keeps one tracking per fulfillment: the last one attached.
    expect(fulfillment.tracking).toEqual(s.warehouse.trackingOf(order.order_number));
    expect([first.stats.replays, first.stats.tracking_attached, second.stats.tracking_attached]).toEqual([1, 1, 1]);
    expect(secondKeys).toEqual([trackingKey(fulfillment.id, otherWarehouse.trackingOf(order.order_number))]);
    expect(firstKeys).toEqual([trackingKey(fulfillment.id, s.warehouse.trackingOf(order.order_number))]);
    expect(firstKeys[0]).not.toBe(secondKeys[0]);
    await first.stop();
    await second.stop();
  });

  it('a tracking whose answer was lost is sent again after a restart under the same key and replayed: attached once, the warehouse asked once', async () => {
    const s = await shop();
    const order = await s.placeOrder(1);
    const keys: (string | null)[] = [];
    let lost = false;
    const lossy: typeof fetch = async (input, init) => {
      const res = await server.fetch(input, init);
      if (!lost && init?.method === 'POST' && String(input).endsWith('/tracking')) {
        lost = true;
        await res.text();
        throw new TypeError('fetch failed: connection reset');
      }
      return res;
    };
    const crashing = await start(s.options({ client: { fetch: trackingRecorder(keys, lossy), retry: { maxAttempts: 1 } }, retryDelayMs: 3_600_000 }));
    await waitFor(() => lost && crashing.stats.errors >= 1, { deadlineMs: 10_000, what: 'the lost tracking answer' });
    await crashing.stop();

    const connector = await start(s.options({ client: { fetch: trackingRecorder(keys) } }));
    const [fulfillment] = await shippedFor(s.admin, order.id);
    await waitFor(() => s.state().orders[order.id]?.state === 'shipped', { deadlineMs: 10_000, what: 'the order shipped' });
    const key = trackingKey(fulfillment.id, s.warehouse.trackingOf(order.order_number));
    expect(keys).toEqual([key, key]);
    expect(s.state().orders[order.id]?.tracking_key).toBe(key);
    expect([crashing.stats.tracking_attached, connector.stats.tracking_attached, connector.stats.replays]).toEqual([0, 1, 1]);
    expect(s.warehouse.shipCalls).toHaveLength(1);
    await connector.stop();
  });

  it('an API that does not answer at start is waited for, with backoff, then the connector starts', async () => {
    const s = await shop();
    let refused = 0;
    const down: typeof fetch = async (input, init) => {
      if (refused < 3) {
        refused++;
        throw new TypeError('fetch failed');
      }
      return server.fetch(input, init);
    };
    // It exited: "listLocations: no answer after 1 attempt: fetch failed".
    const connector = await start(s.options({ client: { fetch: down, retry: { maxAttempts: 1 } }, retryDelayMs: 20 }));
    expect(connector.locationIds).toEqual([s.A]);
    const waits = s.logs.filter((l) => l.startsWith('API not answering at start')).map((l): unknown => JSON.parse(l.slice(l.indexOf('{'))));
    expect(waits).toEqual([20, 40, 80].map((retry_in_ms) => expect.objectContaining({ what: 'listLocations', retry_in_ms })));
    await connector.stop();
    expect(fs.existsSync(path.join(s.dataDir, 'connector.lock'))).toBe(false);
  });

  it('a stop while it waits for the API at start ends the start and releases the lock', async () => {
    const s = await shop();
    const stopping = new AbortController();
    const never: typeof fetch = async () => {
      throw new TypeError('fetch failed');
    };
    const starting = startConnector(s.options({ client: { fetch: never, retry: { maxAttempts: 1 } }, retryDelayMs: 50, signal: stopping.signal }));
    const outcome = starting.then(
      () => 'started',
      (err: unknown) => err,
    );
    await waitFor(() => s.logs.length >= 2, { deadlineMs: 5_000, what: 'two failed start-up attempts' });
    expect(fs.existsSync(path.join(s.dataDir, 'connector.lock'))).toBe(true);
    stopping.abort();
    expect(await outcome).toMatchObject({ name: 'AbortError' });
    expect(fs.existsSync(path.join(s.dataDir, 'connector.lock'))).toBe(false);
  });

  it('the process stopped with SIGTERM while the API is unreachable exits 0 and leaves no lock', async () => {
    const closed = await new Promise<number>((resolve) => {
      const probe = net.createServer().listen(0, '127.0.0.1', () => {
        const address = probe.address();
        probe.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
      });
    });
    const dataDir = scratchDir();
    const child = spawn(process.execPath, [path.join(import.meta.dirname, '../src/main.ts')], {
      env: {
        ...process.env,
        MIA_BASE_URL: `http://127.0.0.1:${closed}`,
        MIA_API_KEY: 'mia_sk_unused',
        WEBHOOK_SECRETS: 'whsec_unused',
        DATA_DIR: dataDir,
        PORT: '0',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.on('exit', (code, signal) => resolve([code, signal])));
    // Locked, then 0.5 s into its first call's retries.
    await waitFor(() => fs.existsSync(path.join(dataDir, 'connector.lock')), { deadlineMs: 10_000, what: 'the lock' });
    await new Promise((r) => setTimeout(r, 500));
    child.kill('SIGTERM');
    expect(await exited, output).toEqual([0, null]);
    expect(fs.existsSync(path.join(dataDir, 'connector.lock'))).toBe(false);
  });

  it('temporary state files left by a process killed mid-write are removed at start', () => {
    const dataDir = scratchDir();
    fs.mkdirSync(dataDir, { recursive: true });
    for (const name of ['connector-state.json.4242.tmp', 'connector-state.json.7.tmp', 'notes.tmp']) fs.writeFileSync(path.join(dataDir, name), '{"half');
    StateStore.open(dataDir);
    expect(fs.readdirSync(dataDir).sort()).toEqual(['notes.tmp']);
  });
});
