// The portal's events page over HTTP: recent events with their payload and the endpoints each went to,
// filtered by type and paged.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, portalJson, problem, startMerchantApp, type TestApp, type TestMerchant } from '../../../test/helpers.ts';
import { startReceiver, type Receiver } from '../../../test/receiver.ts';
import { portalCall, portalEndpoint, portalUser, syncConnectedVariant, type PortalSession } from '../../../test/fixtures.ts';

let t: TestApp;
let m: TestMerchant;
let receiver: Receiver;
let s: PortalSession;
let variantId: string;

const call = (method: string, url: string, payload?: unknown) => portalCall(t, s, method, url, payload);

beforeAll(async () => {
  ({ t, m } = await startMerchantApp({ config: { webhookRetrySchedule: [0, 0] }, locations: 2 }));
  s = await portalUser(t, m, 'ops@events.test');
  variantId = await syncConnectedVariant(t, m, 'Mug', { sku: 'MUG', price: 12, inventory_policy: 'continue' });
  receiver = await startReceiver('/hooks');
});
afterAll(async () => {
  await receiver?.close();
  await t?.close();
});

const placeOrder = async () =>
  json(await m.op('POST', '/orders', { fulfillment_location_id: m.locations[0], line_items: [{ variant_id: variantId, quantity: 1 }] }), 201, 'createOrder')
    .data;

describe('events', () => {
  it('lists recent events with payload and the endpoints each went to', async () => {
    const ep = await portalEndpoint(t, s, { url: receiver.url, events: ['order.cancelled'], description: 'cancels' });
    const placed = await placeOrder();
    json(await m.op('POST', `/orders/${placed.id}/cancel`, {}), 200, 'cancelOrder');
    const events = portalJson(await call('GET', '/events?limit=2'), 200, 'GET /portal/api/events');
    // Written in one transaction, possibly in the same millisecond: the order between them is the id's.
    expect(events.data.map((e: { type: string }) => e.type).sort()).toEqual(['inventory.updated', 'order.cancelled']);
    const cancelled = events.data.find((e) => e.type === 'order.cancelled')!;
    expect(cancelled.payload).toMatchObject({ id: placed.id, status: 'cancelled' });
    expect(cancelled.deliveries).toEqual([
      { id: expect.any(String), endpoint_id: ep.id, endpoint_url: receiver.url, status: 'pending', attempts: 0, last_status_code: null },
    ]);
    const byType = portalJson(await call('GET', '/events?type=order.cancelled'), 200, 'GET /portal/api/events').data;
    expect(byType.map((e: { id: string }) => e.id)).toEqual([cancelled.id]);
    const next = portalJson(await call('GET', `/events?limit=2&before=${encodeURIComponent(events.next_before!)}`), 200, 'GET /portal/api/events').data;
    expect(next.map((e: { type: string }) => e.type).sort()).toEqual(['inventory.updated', 'order.created']);
    expect(next.map((e: { id: string }) => e.id).filter((id: string) => events.data.some((e: { id: string }) => e.id === id))).toEqual([]);
    expect(problem(await call('GET', '/events?type=order.bogus'), 422).errors?.[0].path).toBe('/type');
    portalJson(await call('DELETE', `/webhook-endpoints/${ep.id}`), 200, 'DELETE /portal/api/webhook-endpoints/:id');
  });
});
