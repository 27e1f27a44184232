// Orders and fulfillments as the API shows them, built by PostgreSQL as JSON text (json_build_object,
// keys in the schema's order, values by the wire rules of src/http/serialize.ts): read routes answer
// the text as it is, writes and events parse it. And the fulfillment state an order's lines make
// (shown as `fulfillment_status`).
import { sql, type Expression } from 'kysely';
import { columnsOf, frozen, jsonObject } from '../../../db/fragment.ts';
import { sameMerchantAs } from '../../../db/scope.ts';
import { isoSql, moneySql, type JsonText } from '../../../http/serialize.ts';
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

/** `{ name: column->'name', … }`: every field present, null when the stored object lacks it. */
const textFields = (column: string, fields: readonly string[]) =>
  jsonObject(Object.fromEntries(fields.map((f) => [f, sql`${sql.ref(column)}->${sql.lit(f)}`])));

/**
 * The order (table `orders`) as the API shows it. Its lines come from the lateral `lines` (orderLines
 * below: `items`, `fulfilled`, `total`), its fulfillment ids from a subquery.
 */
export const orderJson = frozen(sql<JsonText<Order>>`json_build_object(
  'id', orders.id,
  'order_number', orders.order_number,
  'status', orders.status,
  'fulfillment_status', orders.fulfillment_status,
  'fulfillment_location_id', orders.fulfillment_location_id,
  'currency', orders.currency,
  'total_price', ${moneySql('orders.total_price')},
  'customer', ${textFields('orders.customer', CUSTOMER_FIELDS)},
  'shipping_address', ${textFields('orders.shipping_address', ADDRESS_FIELDS)},
  'line_items', coalesce(lines.items, '[]'),
  'fulfillment_summary', json_build_object(
    'fulfilled_quantity', coalesce(lines.fulfilled, 0),
    'total_quantity', coalesce(lines.total, 0),
    'fulfillment_ids', (select coalesce(json_agg(f.id order by f.created_at, f.id), '[]')
                          from fulfillments f
                         where ${sameMerchantAs('f', 'orders')} and f.order_id = orders.id)),
  'created_at', ${isoSql('orders.created_at')},
  'updated_at', ${isoSql('orders.updated_at')})::text`);

/** The order's lines as JSON with their sums, for a lateral join beside `orders` (as `lines`). */
export const orderLinesJson = frozen(
  sql<{ items: unknown; fulfilled: number; total: number }>`(
    select json_agg(json_build_object(
             'id', l.id, 'product_id', l.product_id, 'variant_id', l.variant_id, 'sku', l.sku, 'title', l.title,
             'variant_title', l.variant_title, 'quantity', l.quantity, 'fulfilled_quantity', l.fulfilled_quantity,
             'fulfillable_quantity', case when orders.status = 'open' then l.quantity - l.fulfilled_quantity else 0 end,
             'price', ${moneySql('l.price')}
           ) order by l.position) items,
           sum(l.fulfilled_quantity) fulfilled,
           sum(l.quantity) total
      from order_line_items l
     where ${sameMerchantAs('l', 'orders')} and l.order_id = orders.id)`,
).as('lines');

/**
 * The fulfillment (the row `f`, a table or a CTE with the fulfillments columns) as the API shows it,
 * with `items` (a JSON array of { merchant_order_item_id, quantity }).
 */
export const fulfillmentJson = (f: string, items: Expression<unknown>) =>
  sql<JsonText<Fulfillment>>`${jsonObject({
    ...columnsOf(f, { id: 'id', merchant_order_id: 'order_id', fulfillment_location_id: 'fulfillment_location_id', status: 'status' }),
    ...columnsOf(f, { carrier_name: 'carrier_name', service_level: 'service_level' }),
    tracking: sql`case when ${sql.ref(`${f}.tracking_number`)} is null then null else ${jsonObject(
      columnsOf(f, {
        tracking_number: 'tracking_number',
        tracking_url: 'tracking_url',
        carrier_name: 'tracking_carrier_name',
        service_level: 'tracking_service_level',
      }),
    )} end`,
    items,
    created_at: isoSql(`${f}.created_at`),
    updated_at: isoSql(`${f}.updated_at`),
  })}::text`;

/** A stored fulfillment's items as JSON, in their order. */
const fulfillmentItems = (f: string) => sql`(
  select coalesce(json_agg(json_build_object('merchant_order_item_id', i.line_item_id, 'quantity', i.quantity) order by i.position), '[]')
    from fulfillment_items i
   where ${sameMerchantAs('i', f)} and i.fulfillment_id = ${sql.ref(`${f}.id`)})`;

/** A stored fulfillment (table `fulfillments`) as the API shows it. */
export const fulfillmentRecordJson = frozen(fulfillmentJson('fulfillments', fulfillmentItems('fulfillments')));

export type FulfillmentItemJson = Fulfillment['items'][number];
