// Order and fulfillment rows turned into the records the API shows, and the fulfillment state an
// order's lines make (shown as `fulfillment_status`).
import type { Selectable } from 'kysely';
import type { FulfillmentsTable, OrderLineItemsTable, OrdersTable } from '../../../db/schema.ts';
import { iso, money } from '../../../http/serialize.ts';
import { ADDRESS_FIELDS, CUSTOMER_FIELDS, type Fulfillment, type Order, type OrderFulfillmentState } from './schemas.ts';

export function fulfillmentStatusOf(lines: { quantity: number; fulfilled_quantity: number }[]): OrderFulfillmentState {
  const done = lines.reduce((s, l) => s + l.fulfilled_quantity, 0);
  const total = lines.reduce((s, l) => s + l.quantity, 0);
  return done === 0 ? 'unfulfilled' : done >= total ? 'fulfilled' : 'partially_fulfilled';
}

export function group<T, K>(rows: T[], key: (r: T) => K): Map<K, T[]> {
  const out = new Map<K, T[]>();
  for (const r of rows) {
    const list = out.get(key(r));
    if (list) list.push(r);
    else out.set(key(r), [r]);
  }
  return out;
}

const fill = <K extends string>(fields: readonly K[], value: Record<string, string | null> | null) =>
  Object.fromEntries(fields.map((f) => [f, value?.[f] ?? null])) as Record<K, string | null>;

/** What presentOrder reads of an order row (a statement's selection of these columns). */
export type OrderRow = Pick<
  Selectable<OrdersTable>,
  'id' | 'order_number' | 'status' | 'fulfillment_status' | 'fulfillment_location_id' | 'currency' | 'total_price' | 'customer' | 'shipping_address' | 'created_at' | 'updated_at'
>;

export type OrderLineRow = Pick<
  Selectable<OrderLineItemsTable>,
  'id' | 'product_id' | 'variant_id' | 'sku' | 'title' | 'variant_title' | 'quantity' | 'fulfilled_quantity' | 'price'
>;

export function presentOrder(o: OrderRow, lines: OrderLineRow[], fulfillmentIds: string[]): Order {
  const open = o.status === 'open';
  const items = lines.map((l) => ({
    id: l.id,
    product_id: l.product_id,
    variant_id: l.variant_id,
    sku: l.sku,
    title: l.title,
    variant_title: l.variant_title,
    quantity: l.quantity,
    fulfilled_quantity: l.fulfilled_quantity,
    fulfillable_quantity: open ? l.quantity - l.fulfilled_quantity : 0,
    price: money(l.price),
  }));
  return {
    id: o.id,
    order_number: Number(o.order_number),
    status: o.status,
    fulfillment_status: o.fulfillment_status,
    fulfillment_location_id: o.fulfillment_location_id,
    currency: o.currency,
    total_price: money(o.total_price),
    customer: fill(CUSTOMER_FIELDS, o.customer),
    shipping_address: fill(ADDRESS_FIELDS, o.shipping_address),
    line_items: items,
    fulfillment_summary: {
      fulfilled_quantity: items.reduce((s, l) => s + l.fulfilled_quantity, 0),
      total_quantity: items.reduce((s, l) => s + l.quantity, 0),
      fulfillment_ids: fulfillmentIds,
    },
    created_at: iso(o.created_at),
    updated_at: iso(o.updated_at),
  };
}

export type FulfillmentRow = Omit<Selectable<FulfillmentsTable>, 'merchant_id'>;

export function presentFulfillment(f: FulfillmentRow, items: { line_item_id: string; quantity: number }[]): Fulfillment {
  return {
    id: f.id,
    merchant_order_id: f.order_id,
    fulfillment_location_id: f.fulfillment_location_id,
    status: f.status,
    carrier_name: f.carrier_name,
    service_level: f.service_level,
    tracking:
      f.tracking_number === null
        ? null
        : { tracking_number: f.tracking_number, tracking_url: f.tracking_url, carrier_name: f.tracking_carrier_name, service_level: f.tracking_service_level },
    items: items.map((i) => ({ merchant_order_item_id: i.line_item_id, quantity: i.quantity })),
    created_at: iso(f.created_at),
    updated_at: iso(f.updated_at),
  };
}
