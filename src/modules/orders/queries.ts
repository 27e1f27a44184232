// Orders as the API shows them, loaded in batches: three queries for any number of orders.
import { sql, type Insertable } from 'kysely';
import type { Database } from '../../db/database.ts';
import type { OrderLineItemsTable, OrdersTable } from '../../db/schema.ts';
import { atVisibleLocation, ofMerchant, type Scope } from '../../db/scope.ts';
import { readPage, type PageRequest } from '../../http/paging.ts';
import { iso, money } from '../../http/serialize.ts';
import { NO_ID } from '../inventory/queries.ts';

export type FulfillmentStatus = 'unfulfilled' | 'partially_fulfilled' | 'fulfilled';

export const CUSTOMER_FIELDS = ['name', 'email', 'phone'] as const;
export const ADDRESS_FIELDS = ['name', 'company', 'address1', 'address2', 'city', 'province', 'postal_code', 'country_code', 'phone'] as const;

const fill = <K extends string>(fields: readonly K[], value: Record<string, string | null> | null) =>
  Object.fromEntries(fields.map((f) => [f, value?.[f] ?? null])) as Record<K, string | null>;

const orderColumns = [
  'id',
  'order_number',
  'status',
  'fulfillment_status',
  'fulfillment_location_id',
  'currency',
  'total_price',
  'customer',
  'shipping_address',
  'created_at',
  'updated_at',
] as const;

/** Orders in the order of `ids`; ids that are unknown or another merchant's are left out. */
export async function loadOrders(db: Database, merchantId: string, ids: string[]) {
  if (ids.length === 0) return [];
  const unique = [...new Set(ids)];
  const orders = await db.selectFrom('orders').select(orderColumns).where('merchant_id', '=', merchantId).where('id', 'in', unique).execute();
  if (orders.length === 0) return [];
  const found = orders.map((o) => o.id);
  const lines = await db
    .selectFrom('order_line_items')
    .select(['id', 'order_id', 'product_id', 'variant_id', 'sku', 'title', 'variant_title', 'quantity', 'fulfilled_quantity', 'price'])
    .where('merchant_id', '=', merchantId)
    .where('order_id', 'in', found)
    .orderBy('order_id')
    .orderBy('position')
    .execute();
  const fulfillments = await db
    .selectFrom('fulfillments')
    .select(['id', 'order_id'])
    .where('merchant_id', '=', merchantId)
    .where('order_id', 'in', found)
    .orderBy('created_at')
    .orderBy('id')
    .execute();

  const linesOf = group(lines, (l) => l.order_id);
  const fulfillmentsOf = group(fulfillments, (f) => f.order_id);
  const byId = new Map(
    orders.map((o) => {
      const open = o.status === 'open';
      const items = (linesOf.get(o.id) ?? []).map((l) => ({
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
      return [
        o.id as string,
        {
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
            fulfillment_ids: (fulfillmentsOf.get(o.id) ?? []).map((f) => f.id),
          },
          created_at: iso(o.created_at),
          updated_at: iso(o.updated_at),
        },
      ];
    }),
  );
  return unique.flatMap((id) => (byId.has(id) ? [byId.get(id)!] : []));
}
export type Order = Awaited<ReturnType<typeof loadOrders>>[number];

export function group<T, K>(rows: T[], key: (r: T) => K): Map<K, T[]> {
  const out = new Map<K, T[]>();
  for (const r of rows) {
    const list = out.get(key(r));
    if (list) list.push(r);
    else out.set(key(r), [r]);
  }
  return out;
}

export interface OrderFilters {
  status?: 'open' | 'closed' | 'cancelled';
  created_after?: string;
  updated_after?: string;
}

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

/** The order's status without taking its lock (what a request finds when it arrives). */
export async function orderStatus(db: Database, merchantId: string, id: string) {
  const row = await db.selectFrom('orders').select('status').where('merchant_id', '=', merchantId).where('id', '=', id).executeTakeFirst();
  return row?.status ?? null;
}

/** The order row, locked for the rest of the transaction (fulfilling, cancelling). */
export async function lockOrder(trx: Database, merchantId: string, id: string) {
  return trx
    .selectFrom('orders')
    .select(['id', 'status', 'fulfillment_location_id'])
    .where('merchant_id', '=', merchantId)
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();
}

/** Variants with what an order line snapshots of them. */
export function intakeVariants(db: Database, merchantId: string, ids: string[]) {
  return db
    .selectFrom('variants')
    .innerJoin('products', 'products.id', 'variants.product_id')
    .select(['variants.id', 'variants.product_id', 'variants.sku', 'variants.option1', 'variants.option2', 'variants.option3', 'variants.price', 'variants.inventory_policy', 'products.title'])
    .where('variants.merchant_id', '=', merchantId)
    .where('variants.id', 'in', ids.length ? ids : [NO_ID])
    .execute();
}

/** The merchant's next order number, taken atomically (the merchant row stays locked until commit). */
export function takeOrderNumber(trx: Database, merchantId: string) {
  return trx
    .updateTable('merchants')
    .set({ next_order_number: sql`next_order_number + 1`, updated_at: sql`clock_timestamp()` })
    .where('id', '=', merchantId)
    .returning([sql<string>`next_order_number - 1`.as('order_number'), 'currency'])
    .executeTakeFirstOrThrow();
}

export async function insertOrder(trx: Database, order: Insertable<OrdersTable>, lines: Omit<Insertable<OrderLineItemsTable>, 'order_id' | 'merchant_id'>[]): Promise<string> {
  const { id } = await trx.insertInto('orders').values(order).returning(['id']).executeTakeFirstOrThrow();
  await trx
    .insertInto('order_line_items')
    .values(lines.map((l) => ({ ...l, merchant_id: order.merchant_id, order_id: id })))
    .execute();
  return id;
}

/** The lines of an order, for fulfilling and cancelling (the order row is locked by then). */
export function orderLines(trx: Database, merchantId: string, orderId: string) {
  return trx
    .selectFrom('order_line_items')
    .select(['id', 'variant_id', 'quantity', 'fulfilled_quantity'])
    .where('merchant_id', '=', merchantId)
    .where('order_id', '=', orderId)
    .orderBy('position')
    .execute();
}

export function addFulfilledQuantity(trx: Database, merchantId: string, lineId: string, delta: number) {
  return trx
    .updateTable('order_line_items')
    .set({ fulfilled_quantity: sql`fulfilled_quantity + ${delta}`, updated_at: sql`clock_timestamp()` })
    .where('merchant_id', '=', merchantId)
    .where('id', '=', lineId)
    .execute();
}

export function updateOrderState(
  trx: Database,
  merchantId: string,
  orderId: string,
  state: { fulfillment_status: FulfillmentStatus; status?: 'closed' | 'cancelled' },
) {
  return trx
    .updateTable('orders')
    .set({
      fulfillment_status: state.fulfillment_status,
      ...(state.status ? { status: state.status } : {}),
      ...(state.status === 'cancelled' ? { cancelled_at: sql`clock_timestamp()` } : {}),
      updated_at: sql`clock_timestamp()`,
    })
    .where('merchant_id', '=', merchantId)
    .where('id', '=', orderId)
    .execute();
}
