// Statements of order intake and the orders list (the order book's shared ones are in
// records/queries.ts). Every statement carries the merchant filter.
import { sql, type Insertable } from 'kysely';
import type { Database } from '../../db/database.ts';
import type { OrderLineItemsTable } from '../../db/schema.ts';
import { atVisibleLocation, ofMerchant, scopeValues, type Scope } from '../../db/scope.ts';
import { statement } from '../../db/statement.ts';
import { finishPage, keysetPage, pageValues, type PageRequest, type PageValues } from '../../http/paging.ts';
import { orderRecords } from './records/queries.ts';
import type { OrderFilters } from './schemas.ts';

const orderPage = statement((db, v: Scope & PageValues & { status: NonNullable<OrderFilters['status']> | null; createdAfter: Date | null }) => {
  let q = orderRecords(db, v).where(atVisibleLocation('orders.fulfillment_location_id', v));
  if (v.status !== null) q = q.where('orders.status', '=', v.status);
  if (v.createdAfter !== null) q = q.where('orders.created_at', '>', v.createdAfter);
  return keysetPage(q, 'orders', v);
});

/** One page of orders as the API shows them, limited to the caller's locations: one statement. */
export async function selectOrderPage(db: Database, scope: Scope, page: PageRequest, f: OrderFilters) {
  const rows = await orderPage(db, {
    ...scopeValues(scope),
    status: f.status ?? null,
    createdAfter: f.created_after ? new Date(f.created_after) : null,
    ...pageValues(page, f.updated_after),
  });
  const { items, meta } = finishPage(page, rows);
  return { items: items.map((row) => row.json), meta };
}

/**
 * The merchant's variants among `ids`, by id, with what an order line snapshots of them; locked
 * against removal until the commit, in id order (see adjustmentTargets in inventory/queries.ts).
 */
export async function intakeVariants(db: Database, scope: Scope, ids: string[]) {
  if (ids.length === 0) return new Map<string, never>();
  const rows = await db
    .selectFrom('variants')
    .innerJoin('products', 'products.id', 'variants.product_id')
    .select([
      'variants.id',
      'variants.product_id',
      'variants.sku',
      'variants.option1',
      'variants.option2',
      'variants.option3',
      'variants.price',
      'variants.inventory_policy',
      'products.title',
    ])
    .where(ofMerchant('variants', scope))
    .where('variants.id', 'in', ids)
    .orderBy('variants.id')
    .forKeyShare('variants')
    .execute();
  return new Map(rows.map((v) => [v.id, v]));
}

/** The merchant's next order number, taken atomically (the merchant row stays locked until commit). */
export function takeOrderNumber(trx: Database, scope: Scope) {
  return trx
    .updateTable('merchants')
    .set({ next_order_number: sql`next_order_number + 1`, updated_at: sql`clock_timestamp()` })
    .where('id', '=', scope.merchantId)
    .returning([sql<string>`next_order_number - 1`.as('order_number'), 'currency'])
    .executeTakeFirstOrThrow();
}

export interface NewOrder {
  order_number: string;
  fulfillment_location_id: string;
  currency: string;
  total_price: string;
  /** JSON text, or null. */
  customer: string | null;
  shipping_address: string | null;
}

export type NewOrderLine = Omit<Insertable<OrderLineItemsTable>, 'order_id' | 'merchant_id' | 'fulfilled_quantity' | 'position'> & { position: number };

/** The order and all its lines in one statement. */
export async function insertOrder(trx: Database, scope: Scope, order: NewOrder, lines: NewOrderLine[]): Promise<string> {
  const { rows } = await sql<{ id: string }>`
    with new_order as (
      insert into orders (merchant_id, order_number, fulfillment_location_id, currency, total_price, customer, shipping_address)
      values (${scope.merchantId}::uuid, ${order.order_number}::bigint, ${order.fulfillment_location_id}::uuid, ${order.currency}, ${order.total_price}::numeric,
              ${order.customer}::jsonb, ${order.shipping_address}::jsonb)
      returning id
    ), new_lines as (
      insert into order_line_items (merchant_id, order_id, position, product_id, variant_id, sku, title, variant_title, quantity, price)
      select ${scope.merchantId}::uuid, new_order.id, l.position, l.product_id, l.variant_id, l.sku, l.title, l.variant_title, l.quantity, l.price
        from new_order,
             jsonb_to_recordset(${JSON.stringify(lines)}::jsonb)
               as l(position int, product_id uuid, variant_id uuid, sku text, title text, variant_title text, quantity int, price numeric)
       order by l.position
    )
    select id from new_order`.execute(trx);
  return rows[0].id;
}
