// verifyWebhook on deliveries the server's worker really sent to a receiver on 127.0.0.1:
// signature over the raw body, timestamp tolerance, rotation (two signatures), typed events.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebhookVerificationError, verifyWebhook, type Order, type WebhookEvent } from 'merchant-integration-sdk';
import { startLiveServer, waitFor, type LiveServer } from '../../../test/live-server.ts';
import { objectIdOf, startReceiver, type Received, type Receiver } from '../../../test/receiver.ts';

let server: LiveServer;
let receiver: Receiver;
let merchantId: string;
let locationId: string;
let endpoint: { id: string; signing_secret: string };
let variantId: string;

async function placeOrder(quantity: number): Promise<Order> {
  return server.operator<Order>(
    'POST',
    `/merchants/${merchantId}/orders`,
    { fulfillment_location_id: locationId, line_items: [{ variant_id: variantId, quantity }] },
    201,
  );
}

async function delivered(type: string, objectId: string): Promise<Received> {
  return waitFor(() => receiver.received.find((r) => r.headers['x-service-webhook-event'] === type && objectIdOf(r.body) === objectId), {
    deadlineMs: 15_000,
    what: `${type} for ${objectId}`,
  });
}

const headersOf = (r: Received) => ({
  'x-service-webhook-id': String(r.headers['x-service-webhook-id']),
  'x-service-webhook-event': String(r.headers['x-service-webhook-event']),
  'x-service-webhook-timestamp': String(r.headers['x-service-webhook-timestamp']),
  'x-service-webhook-signature': String(r.headers['x-service-webhook-signature']),
});

/** What a receiver would do with the event: the switch narrows data.object by type. */
function describeEvent(event: WebhookEvent): string {
  switch (event.type) {
    case 'order.created':
    case 'order.updated':
    case 'order.cancelled':
      return `order #${event.data.object.order_number} ${event.data.object.status}`;
    case 'inventory.updated':
      return `inventory ${event.data.object.sku} on_hand=${event.data.object.on_hand} committed=${event.data.object.committed}`;
    case 'ping':
      return `ping for ${event.data.object.endpoint_id}`;
    default:
      return event.type;
  }
}

beforeAll(async () => {
  server = await startLiveServer();
  receiver = await startReceiver();
  merchantId = (await server.operator<{ id: string }>('POST', '/merchants', { name: 'Hooks' }, 201)).id;
  locationId = (await server.operator<{ id: string }>('POST', `/merchants/${merchantId}/locations`, { name: 'Only' }, 201)).id;
  const key = (
    await server.operator<{ secret: string }>('POST', `/merchants/${merchantId}/api-keys`, { label: 'k', scopes: ['products.write', 'inventory.adjust'] }, 201)
  ).secret;
  const res = await server.fetch(`${server.baseUrl}/api/integrations/v1/products`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ title: 'Mug', variants: [{ sku: 'MUG-1', price: 9, inventory_policy: 'continue' }] }),
  });
  variantId = ((await res.json()) as { data: { variants: { id: string }[] } }).data.variants[0].id;
  endpoint = await server.operator(
    'POST',
    `/merchants/${merchantId}/webhook-endpoints`,
    { url: receiver.url, events: ['order.created', 'inventory.updated'] },
    201,
  );
});
afterAll(async () => {
  await receiver?.close();
  await server?.close();
});

describe('verifyWebhook', () => {
  it('verifies a real delivery over its raw body and returns the typed event', async () => {
    const order = await placeOrder(3);
    const r = await delivered('order.created', order.id);
    const event = await verifyWebhook({ rawBody: r.raw, headers: headersOf(r), secret: endpoint.signing_secret });
    expect(event.id).toBe(r.headers['x-service-webhook-id']);
    expect([event.type, event.merchant_id, event.location_id]).toEqual(['order.created', merchantId, locationId]);
    expect(describeEvent(event)).toBe(`order #${order.order_number} open`);
    if (event.type !== 'order.created') throw new Error('narrowing');
    expect(event.data.object).toEqual(order);
    const inventory = await waitFor(() => receiver.received.find((x) => x.headers['x-service-webhook-event'] === 'inventory.updated'), {
      deadlineMs: 15_000,
      what: 'inventory.updated',
    });
    expect(
      describeEvent(await verifyWebhook({ rawBody: Buffer.from(inventory.raw), headers: new Headers(headersOf(inventory)), secret: endpoint.signing_secret })),
    ).toBe('inventory MUG-1 on_hand=0 committed=3');
  });

  it('refuses a changed body, a wrong secret and a timestamp outside the tolerance', async () => {
    const order = await placeOrder(1);
    const r = await delivered('order.created', order.id);
    const at = Number(r.headers['x-service-webhook-timestamp']) * 1000;
    const reason = (p: Promise<unknown>) =>
      p.then(
        () => 'accepted',
        (e: unknown) => (e instanceof WebhookVerificationError ? e.reason : String(e)),
      );
    expect(
      await reason(verifyWebhook({ rawBody: r.raw.replace('"quantity":1', '"quantity":9'), headers: headersOf(r), secret: endpoint.signing_secret })),
    ).toBe('signature_mismatch');
    expect(await reason(verifyWebhook({ rawBody: r.raw, headers: headersOf(r), secret: 'whsec_wrong' }))).toBe('signature_mismatch');
    expect(await reason(verifyWebhook({ rawBody: r.raw, headers: headersOf(r), secret: endpoint.signing_secret, now: () => at + 301_000 }))).toBe(
      'timestamp_outside_tolerance',
    );
    expect(await reason(verifyWebhook({ rawBody: r.raw, headers: headersOf(r), secret: endpoint.signing_secret, now: () => at - 301_000 }))).toBe(
      'timestamp_outside_tolerance',
    );
    expect(await reason(verifyWebhook({ rawBody: r.raw, headers: headersOf(r), secret: endpoint.signing_secret, now: () => at + 299_000 }))).toBe('accepted');
    expect(
      await reason(verifyWebhook({ rawBody: r.raw, headers: headersOf(r), secret: endpoint.signing_secret, toleranceSeconds: 10, now: () => at + 11_000 })),
    ).toBe('timestamp_outside_tolerance');
    expect(
      await reason(verifyWebhook({ rawBody: r.raw, headers: { ...headersOf(r), 'x-service-webhook-signature': undefined }, secret: endpoint.signing_secret })),
    ).toBe('missing_header');
    expect(
      await reason(
        verifyWebhook({ rawBody: r.raw, headers: { ...headersOf(r), 'x-service-webhook-event': 'order.cancelled' }, secret: endpoint.signing_secret }),
      ),
    ).toBe('header_mismatch');
  });

  it('no secret, or an empty one among several, is refused as missing_secret whatever the delivery', async () => {
    const order = await placeOrder(1);
    const r = await delivered('order.created', order.id);
    for (const secret of ['', [], [endpoint.signing_secret, ''], ['', endpoint.signing_secret]]) {
      const err = await verifyWebhook({ rawBody: r.raw, headers: headersOf(r), secret }).catch((e: unknown) => e);
      expect(err, JSON.stringify(secret)).toBeInstanceOf(WebhookVerificationError);
      expect(err).toHaveProperty('reason', 'missing_secret');
    }
    // An unset environment variable given without a `!`, from JavaScript.
    const unset: Record<string, string | undefined> = {};
    const err = await verifyWebhook({ rawBody: r.raw, headers: headersOf(r), secret: unset.SIGNING_SECRET as string }).catch((e: unknown) => e);
    expect(err).toHaveProperty('reason', 'missing_secret');
  });

  it('during a secret rotation both signatures are sent and either secret verifies', async () => {
    const oldSecret = endpoint.signing_secret;
    const rotated = await server.operator<{ signing_secret: string }>(
      'POST',
      `/merchants/${merchantId}/webhook-endpoints/${endpoint.id}/rotate-secret`,
      {},
      200,
    );
    expect(rotated.signing_secret).not.toBe(oldSecret);
    const order = await placeOrder(2);
    const r = await delivered('order.created', order.id);
    expect(String(r.headers['x-service-webhook-signature']).split(' ')).toHaveLength(2);
    for (const secret of [oldSecret, rotated.signing_secret, ['whsec_unrelated', rotated.signing_secret]]) {
      const event = await verifyWebhook({ rawBody: r.raw, headers: headersOf(r), secret });
      expect(describeEvent(event)).toBe(`order #${order.order_number} open`);
    }
    endpoint = { ...endpoint, signing_secret: rotated.signing_secret };
  });

  it('the two signatures of a rotation verify when joined by a comma, as Node and proxies join repeated header lines', async () => {
    const order = await placeOrder(1);
    const r = await delivered('order.created', order.id);
    const [first, second] = String(r.headers['x-service-webhook-signature']).split(' ');
    // The secret in force matches one of the two, in whichever place it comes.
    for (const signature of [`${first}, ${second}`, `${second}, ${first}`, `${first},${second}`, `${second},${first}`, [first, second], [second, first]]) {
      const event = await verifyWebhook({
        rawBody: r.raw,
        headers: { ...headersOf(r), 'x-service-webhook-signature': signature },
        secret: endpoint.signing_secret,
      });
      expect(event.id, JSON.stringify(signature)).toBe(r.headers['x-service-webhook-id']);
    }
  });

  it('the test action delivers a ping event', async () => {
    await server.operator('POST', `/merchants/${merchantId}/webhook-endpoints/${endpoint.id}/test`, {}, 200);
    const r = await waitFor(() => receiver.received.find((x) => x.headers['x-service-webhook-event'] === 'ping'), { deadlineMs: 15_000, what: 'ping' });
    const event = await verifyWebhook({ rawBody: r.raw, headers: headersOf(r), secret: endpoint.signing_secret });
    expect(describeEvent(event)).toBe(`ping for ${endpoint.id}`);
  });
});
