// What the connector ships for an order, and the Idempotency-Keys of its fulfillment and tracking.
import { createHash } from 'node:crypto';
import type { Order } from 'merchant-integration-sdk';
import type { LineToShip, Tracking } from './store.ts';

/** Every line of the order with something still fulfillable, for all of it. */
export function linesToShip(order: Order): LineToShip[] {
  return order.line_items.filter((l) => l.fulfillable_quantity > 0).map((l) => ({ merchant_order_item_id: l.id, quantity: l.fulfillable_quantity }));
}

/**
 * The key names the shipment, not just the order: the same lines and quantities get the same key (a
 * retry, or a call whose answer was lost, replays), other ones get their own. One key per order
 * could never send another body once the API had stored an answer under it (a 422 for quantities
 * someone else fulfilled first is stored too): every later body was 422 `idempotency_key_reused`.
 */
export function fulfillmentKey(orderId: string, items: LineToShip[]): string {
  const lines = items.map((i) => `${i.merchant_order_item_id}:${i.quantity}`).join(',');
  return `wc-fulfil-${orderId}-${shortHash(lines)}`;
}

/**
 * The key names the tracking sent, as the fulfillment's names its lines: the same tracking for the
 * same fulfillment gets the same key (sent again after a crash, it replays), another tracking number
 * or carrier its own. One key per order refused the second tracking of an order (another shipment,
 * a second connector's warehouse) with 422 `idempotency_key_reused`, retried for ever, never sent.
 */
export function trackingKey(fulfillmentId: string, tracking: Tracking): string {
  const sent = JSON.stringify([tracking.tracking_number, tracking.carrier_name ?? null, tracking.tracking_url ?? null, tracking.service_level ?? null]);
  return `wc-track-${fulfillmentId}-${shortHash(sent)}`;
}

function shortHash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}
