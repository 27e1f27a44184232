// What the connector ships for an order, and the Idempotency-Key of that fulfillment.
import { createHash } from 'node:crypto';
import type { Order } from 'merchant-integration-sdk';
import type { LineToShip } from './store.ts';

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
  return `wc-fulfil-${orderId}-${createHash('sha256').update(lines).digest('hex').slice(0, 16)}`;
}
