// The warehouse connector end to end against a real server over HTTP (PGlite, port 0, webhook
// worker running): onboard with the operator API, orders at two locations, a Warehouse key
// restricted to one, verified webhooks, fulfil, track, adjust; stop the connector, miss events,
// lose an answer mid-write, restart; nothing missed, nothing doubled. All traffic goes through
// `server.fetch` (every answer checked against the OpenAPI document) and every delivery through a
// tap that checks it against the document's `webhooks` entry before the connector gets it.
import fs from 'node:fs';
import path from 'node:path';
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type Client, type Fulfillment, type InventoryRow, type Order } from 'merchant-integration-sdk';
import { startLiveServer, stockedProduct, waitFor, type LiveServer } from '../../../test/live-server.ts';
import { startWebhookTap, type WebhookTap } from '../../../test/receiver.ts';
import { WAREHOUSE } from '../../../test/fixtures.ts';
import { startConnector, type Connector, type ConnectorOptions, type ConnectorStats } from '../src/connector.ts';
import { TestWarehouse } from './test-warehouse.ts';

const WAREHOUSE_EVENTS = ['order.created', 'order.updated', 'order.cancelled', 'fulfillment.created', 'fulfillment.updated', 'inventory.updated'];

let server: LiveServer;
let tap: WebhookTap | undefined;
let admin: Client;
let merchantId: string;
let A: string;
let B: string;
let warehouseKey: string;
let endpoint: { id: string; signing_secret: string };
let mug: string;
let cap: string;
const warehouse = new TestWarehouse();
const dataDir = path.resolve('.tmp', `connector-e2e-${process.pid}-${randomBytes(3).toString('hex')}`);
const ordersAt: Record<string, Order[]> = {};
const finished: ConnectorStats[] = [];

async function placeOrder(location: string, lines: [string, number][]): Promise<Order> {
  const order = await server.operator<Order>(
    'POST',
    `/merchants/${merchantId}/orders`,
    { fulfillment_location_id: location, line_items: lines.map(([variant_id, quantity]) => ({ variant_id, quantity })) },
    201,
  );
  (ordersAt[location] ??= []).push(order);
  return order;
}

function connect(port: number, extra: Partial<ConnectorOptions> = {}): Promise<Connector> {
  return startConnector({
    baseUrl: server.baseUrl,
    apiKey: warehouseKey,
    signingSecrets: [endpoint.signing_secret],
    dataDir,
    warehouse,
    port,
    reconcileIntervalMs: 3_600_000,
    pollIntervalMs: 100,
    retryDelayMs: 200,
    log: () => {},
    ...extra,
    client: { fetch: server.fetch, ...extra.client },
  });
}

async function stop(connector: Connector) {
  await connector.stop();
  finished.push({ ...connector.stats });
}

async function all<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

/** Fulfillments of the merchant (admin key, every location), once `n` of them are shipped. */
async function shipped(n: number): Promise<Fulfillment[]> {
  return waitFor(
    async () => {
      const list = await all(admin.paginate('listFulfillments', { limit: 250 }));
      return list.length === n && list.every((f) => f.status === 'shipped') ? list : undefined;
    },
    { deadlineMs: 15_000, what: `${n} shipped fulfillments` },
  );
}

async function inventory(): Promise<Record<string, [number, number]>> {
  const rows: InventoryRow[] = await all(admin.paginate('listInventory', { limit: 250 }));
  const name = (l: string) => (l === A ? 'A' : 'B');
  return Object.fromEntries(rows.map((r) => [`${name(r.fulfillment_location_id)} ${r.sku}`, [r.on_hand, r.committed]]));
}

interface Delivery {
  id: string;
  event_id: string;
  event_type: string;
  status: string;
  attempts: number;
}
const deliveries = () => server.operator<Delivery[]>('GET', `/merchants/${merchantId}/webhook-endpoints/${endpoint.id}/deliveries?limit=250`, undefined, 200);

beforeAll(async () => {
  server = await startLiveServer({ webhookRetrySchedule: [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1] });
  // Onboarding through the operator API.
  const merchant = await server.merchant('Connector e2e', ['Warehouse A', 'Store B']);
  merchantId = merchant.id;
  [A, B] = merchant.locations;
  const adminKey = await merchant.key('admin', [...WAREHOUSE, 'products.write']);
  warehouseKey = await merchant.key('warehouse A', WAREHOUSE, [A]);
  admin = createClient({ baseUrl: server.baseUrl, apiKey: adminKey, fetch: server.fetch });
  [mug, cap] = await stockedProduct(
    admin,
    'Camp set',
    [
      { sku: 'E2E-MUG', price: 8, option1: 'Mug' },
      { sku: 'E2E-CAP', price: 15, option1: 'Cap' },
    ],
    [
      [A, [50, 50]],
      [B, [20, 10]],
    ],
  );
});
afterAll(async () => {
  await tap?.close();
  await server?.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('warehouse connector', () => {
  let port = 0;

  it('backfills orders placed before it started, then follows verified webhooks', async () => {
    // Orders before any endpoint exists: only the list can find them.
    await placeOrder(A, [
      [mug, 2],
      [cap, 1],
    ]);
    await placeOrder(A, [[mug, 1]]);
    await placeOrder(A, [[cap, 3]]);
    await placeOrder(B, [[mug, 4]]);
    endpoint = await server.operator(
      'POST',
      `/merchants/${merchantId}/webhook-endpoints`,
      { url: 'http://127.0.0.1:9/placeholder', events: WAREHOUSE_EVENTS, location_ids: [A] },
      201,
    );

    const connector = await connect(0);
    port = connector.port;
    expect(connector.locationIds).toEqual([A]);
    // The connector comes back on the same port after each restart, so one tap serves every run.
    tap = await startWebhookTap(connector.url);
    await server.operator('PATCH', `/merchants/${merchantId}/webhook-endpoints/${endpoint.id}`, { url: tap.url }, 200);
    const first = await shipped(3);
    expect(first.map((f) => f.fulfillment_location_id)).toEqual([A, A, A]);

    // Live: webhooks bring new orders; B's never reach this endpoint.
    await placeOrder(A, [
      [mug, 1],
      [cap, 1],
    ]);
    await placeOrder(B, [[cap, 2]]);
    await shipped(4);
    warehouse.movements.push({ id: 'receipt-1', sku: 'E2E-MUG', fulfillment_location_id: A, delta: 10, reason: 'receipt' });
    warehouse.movements.push({ id: 'damage-1', sku: 'E2E-CAP', fulfillment_location_id: A, delta: -2, reason: 'damaged' });
    await waitFor(() => (connector.stats.adjustments_pushed === 2 ? true : undefined), { deadlineMs: 15_000, what: 'movements pushed' });
    expect(await inventory()).toEqual({ 'A E2E-MUG': [50 - 4 + 10, 0], 'A E2E-CAP': [50 - 5 - 2, 0], 'B E2E-MUG': [20, 4], 'B E2E-CAP': [10, 2] });
    expect(connector.stats.events_rejected).toBe(0);
    await stop(connector);
  });

  it('after a stop and an answer lost mid-write, a restart misses nothing and doubles nothing', async () => {
    // While it is down: orders (their webhooks fail and are retried) and a stock movement.
    await placeOrder(A, [[mug, 2]]);
    await placeOrder(A, [[cap, 1]]);
    await placeOrder(B, [[mug, 1]]);
    warehouse.movements.push({ id: 'receipt-2', sku: 'E2E-CAP', fulfillment_location_id: A, delta: 5, reason: 'receipt' });
    await waitFor(async () => ((await deliveries()).some((d) => d.status === 'pending' && d.attempts >= 1) ? true : undefined), {
      deadlineMs: 15_000,
      what: 'a failed delivery while down',
    });

    // Restart whose first fulfillment answer is lost after the server applied it, then "crash".
    let lost = false;
    const lossy: typeof fetch = async (input, init) => {
      const res = await server.fetch(input, init);
      if (!lost && init?.method === 'POST' && String(input).endsWith('/fulfillments')) {
        lost = true;
        await res.text();
        throw new TypeError('fetch failed: connection reset');
      }
      return res;
    };
    const crashing = await connect(port, { client: { fetch: lossy, retry: { maxAttempts: 1 } }, retryDelayMs: 3_600_000 });
    await waitFor(() => (crashing.stats.errors >= 1 ? true : undefined), { deadlineMs: 15_000, what: 'the lost answer' });
    await stop(crashing);
    expect(crashing.stats.fulfillments_created).toBeLessThan(2);

    // The real restart.
    const connector = await connect(port);
    const list = await shipped(6);
    await waitFor(
      () => {
        const saved: { movements: Record<string, { state: string }> } = JSON.parse(fs.readFileSync(path.join(dataDir, 'connector-state.json'), 'utf8'));
        const states = Object.values(saved.movements).map((m) => m.state);
        return states.length === 3 && states.every((st) => st === 'pushed') ? true : undefined;
      },
      { deadlineMs: 15_000, what: 'every movement pushed' },
    );
    await waitFor(
      async () => {
        const ds = await deliveries();
        return ds.length > 0 && ds.every((d) => d.status === 'delivered') ? ds : undefined;
      },
      { deadlineMs: 15_000, what: 'every delivery delivered' },
    );

    // Exactly one shipped fulfillment per order at A, with the warehouse's tracking; none at B.
    const aOrders = ordersAt[A];
    expect(list.map((f) => f.merchant_order_id).sort()).toEqual(aOrders.map((o) => o.id).sort());
    for (const f of list) {
      const order = aOrders.find((o) => o.id === f.merchant_order_id);
      expect(f.tracking).toEqual({
        tracking_number: `WH-${order?.order_number}`,
        tracking_url: `https://track.example.com/WH-${order?.order_number}`,
        carrier_name: 'Test Post',
        service_level: 'ground',
      });
      expect(f.items).toEqual(order?.line_items.map((l) => ({ merchant_order_item_id: l.id, quantity: l.quantity })));
    }
    const orders = await all(admin.paginate('listOrders', { limit: 250 }));
    expect(orders.filter((o) => o.fulfillment_location_id === A).map((o) => [o.status, o.fulfillment_status])).toEqual(
      aOrders.map(() => ['closed', 'fulfilled']),
    );
    expect(orders.filter((o) => o.fulfillment_location_id === B).map((o) => [o.status, o.fulfillment_status])).toEqual([
      ['open', 'unfulfilled'],
      ['open', 'unfulfilled'],
      ['open', 'unfulfilled'],
    ]);
    // Stock: every fulfillment and every movement applied exactly once.
    expect(await inventory()).toEqual({ 'A E2E-MUG': [50 - 6 + 10, 0], 'A E2E-CAP': [50 - 6 - 2 + 5, 0], 'B E2E-MUG': [20, 5], 'B E2E-CAP': [10, 2] });
    // The warehouse was asked to ship each fulfillment once.
    expect(warehouse.shipCalls.map((c) => c.fulfillment_id).sort()).toEqual(list.map((f) => f.id).sort());
    await stop(connector);

    // Across the three runs: each delivered event applied once (by its webhook, or by the feed catch-up
    // after a restart, when its webhook then comes as a duplicate), the lost answer replayed once.
    const ds = await deliveries();
    const total = (k: keyof ConnectorStats) => finished.reduce((n, s) => n + s[k], 0);
    expect(total('events_accepted') + total('feed_events')).toBe(new Set(ds.map((d) => d.event_id)).size);
    expect(total('events_rejected')).toBe(0);
    expect(total('fulfillments_created')).toBe(6);
    expect(total('tracking_attached')).toBe(6);
    expect(total('adjustments_pushed')).toBe(3);
    expect(total('replays')).toBe(1);
  });

  it('a redelivered event is recognised by its id and changes nothing', async () => {
    const connector = await connect(port);
    const before = await inventory();
    const created = (await deliveries()).find((d) => d.event_type === 'order.created');
    if (!created) throw new Error('no order.created delivery');
    await server.operator('POST', `/merchants/${merchantId}/webhook-endpoints/${endpoint.id}/deliveries/${created.id}/resend`, {}, 200);
    await waitFor(() => (connector.stats.events_duplicate === 1 ? true : undefined), { deadlineMs: 15_000, what: 'the duplicate' });
    await connector.idle();
    expect([connector.stats.events_accepted, connector.stats.fulfillments_created]).toEqual([0, 0]);
    expect(await shipped(6)).toHaveLength(6);
    expect(await inventory()).toEqual(before);
    await stop(connector);
    // Every delivery the connector was sent went through the tap and matched the document.
    expect(tap?.seen).toBeGreaterThan(0);
    await tap?.assertKeptContract();
  });

  it('accepts webhook bodies over 1 MiB (an order of 250 lines is ~1.4 MB); refuses one over 16 MiB, and says so', async () => {
    const logged: string[] = [];
    const connector = await connect(port, { log: (message, fields) => logged.push(`${message} ${JSON.stringify(fields ?? {})}`) });
    const post = async (padding: number) => {
      const id = randomUUID();
      const body = JSON.stringify({
        id,
        type: 'product.updated',
        created_at: new Date().toISOString(),
        merchant_id: merchantId,
        location_id: null,
        position: '0'.repeat(32),
        data: { object: { id: randomUUID(), description: 'x'.repeat(padding) } },
      });
      const timestamp = String(Math.floor(Date.now() / 1000));
      const signature = createHmac('sha256', endpoint.signing_secret).update(`${timestamp}.${body}`).digest('hex');
      const res = await fetch(connector.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-service-webhook-id': id,
          'x-service-webhook-timestamp': timestamp,
          'x-service-webhook-event': 'product.updated',
          'x-service-webhook-position': '0'.repeat(32),
          'x-service-webhook-signature': `v1=${signature}`,
        },
        body,
      });
      return res.status;
    };
    // It answered 413 to every body over 1 MiB: the service retried such an event for three days.
    expect(await post(1_400_000)).toBe(204);
    expect(await post(17 * 1024 * 1024)).toBe(413);
    expect(logged.filter((line) => line.startsWith('webhook rejected'))).toEqual([expect.stringContaining('"reason":"body_too_large"')]);
    await stop(connector);
  });
});
