// Statements of order intake and the orders list (the order book's shared ones are in
// ../orders/records/queries.ts). Every statement carries the merchant filter.
import { sql, type Insertable } from 'kysely';
import type { Database } from '../../db/database.ts';
import type { OrderLineItemsTable, OrdersTable } from '../../db/schema.ts';
import { atVisibleLocation, ofMerchant, type Scope } from '../../db/scope.ts';
import { readPage, type PageRequest } from '../../http/paging.ts';
import type { OrderFilters } from './schemas.ts';

/** One page of order positions, limited to the caller's locations. */
export function selectOrderPage(db: Database, scope: Scope, page: PageRequest, f: OrderFilters) {
  let q = db
    .selectFrom('orders')
    .select(['id', 'updated_at'])
    .where(ofMerchant('orders', scope))
    .where(atVisibleLocation('orders.fulfillment_location_id', scope));
  if (f.status) q = q.where('status', '=', f.status);
  if (f.created_after) q = q.where('created_at', '>', new Date(f.created_after));
  return readPage(q, 'orders', page, f.updated_after);
}

/** Variants with what an order line snapshots of them. */
export async function intakeVariants(db: Database, scope: Scope, ids: string[]) {
  if (ids.length === 0) return [];
  return db
    .selectFrom('variants')
    .innerJoin('products', 'products.id', 'variants.product_id')
    .select(['variants.id', 'variants.product_id', 'variants.sku', 'variants.option1', 'variants.option2', 'variants.option3', 'variants.price', 'variants.inventory_policy', 'products.title'])
    .where(ofMerchant('variants', scope))
    .where('variants.id', 'in', ids)
    .execute();
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

export async function insertOrder(
  trx: Database,
  scope: Scope,
  order: Omit<Insertable<OrdersTable>, 'merchant_id'>,
  lines: Omit<Insertable<OrderLineItemsTable>, 'order_id' | 'merchant_id'>[],
): Promise<string> {
  const { id } = await trx.insertInto('orders').values({ ...order, merchant_id: scope.merchantId }).returning(['id']).executeTakeFirstOrThrow();
  await trx
    .insertInto('order_line_items')
    .values(lines.map((l) => ({ ...l, merchant_id: scope.merchantId, order_id: id })))
    .execute();
  return id;
}
