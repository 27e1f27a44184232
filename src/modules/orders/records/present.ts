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

/** An order line as the order's statement aggregates it (json_build_object: price is a JSON number). */
export type OrderLineJson = Pick<
  Selectable<OrderLineItemsTable>,
  'id' | 'product_id' | 'variant_id' | 'sku' | 'title' | 'variant_title' | 'quantity' | 'fulfilled_quantity'
> & {
  price: number;
};

/** What presentOrder reads: an order row with its lines and fulfillment ids (queries.ts: orderRecords). */
export type OrderRecordRow = Pick<
  Selectable<OrdersTable>,
  | 'id'
  | 'order_number'
  | 'status'
  | 'fulfillment_status'
  | 'fulfillment_location_id'
  | 'currency'
  | 'total_price'
  | 'customer'
  | 'shipping_address'
  | 'created_at'
  | 'updated_at'
> & { lines: OrderLineJson[]; fulfillment_ids: string[] };

export function presentOrder(o: OrderRecordRow): Order {
  const open = o.status === 'open';
  const items = o.lines.map((l) => ({ ...l, fulfillable_quantity: open ? l.quantity - l.fulfilled_quantity : 0, price: Number(l.price) }));
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
      fulfillment_ids: o.fulfillment_ids,
    },
    created_at: iso(o.created_at),
    updated_at: iso(o.updated_at),
  };
}

export type FulfillmentItemJson = Fulfillment['items'][number];

/** What presentFulfillment reads: a fulfillment row with its items (queries.ts: fulfillmentRecords). */
export type FulfillmentRecordRow = Omit<Selectable<FulfillmentsTable>, 'merchant_id'> & { items: FulfillmentItemJson[] };

export function presentFulfillment(f: FulfillmentRecordRow): Fulfillment {
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
    items: f.items,
    created_at: iso(f.created_at),
    updated_at: iso(f.updated_at),
  };
}
