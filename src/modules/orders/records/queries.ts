// The order book both orders and fulfillments build on (neither imports the other): reading orders
// and fulfillments as the API shows them, the order row's lock, its lines' fulfilled quantities,
// and the order's pending fulfillments. Every statement carries the merchant filter.
import { sql } from 'kysely';
import type { Database } from '../../../db/database.ts';
import { ofMerchant, type Scope } from '../../../db/scope.ts';
import { group, presentFulfillment, presentOrder } from './present.ts';
import type { Fulfillment, Order, OrderFulfillmentState } from './schemas.ts';

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
export async function loadOrders(db: Database, scope: Scope, ids: string[]): Promise<Order[]> {
  if (ids.length === 0) return [];
  const unique = [...new Set(ids)];
  const orders = await db.selectFrom('orders').select(orderColumns).where(ofMerchant('orders', scope)).where('id', 'in', unique).execute();
  if (orders.length === 0) return [];
  const found = orders.map((o) => o.id);
  const lines = await db
    .selectFrom('order_line_items')
    .select(['id', 'order_id', 'product_id', 'variant_id', 'sku', 'title', 'variant_title', 'quantity', 'fulfilled_quantity', 'price'])
    .where(ofMerchant('order_line_items', scope))
    .where('order_id', 'in', found)
    .orderBy('order_id')
    .orderBy('position')
    .execute();
  const fulfillments = await db
    .selectFrom('fulfillments')
    .select(['id', 'order_id'])
    .where(ofMerchant('fulfillments', scope))
    .where('order_id', 'in', found)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  const linesOf = group(lines, (l) => l.order_id);
  const fulfillmentsOf = group(fulfillments, (f) => f.order_id);
  const byId = new Map(orders.map((o) => [o.id, presentOrder(o, linesOf.get(o.id) ?? [], (fulfillmentsOf.get(o.id) ?? []).map((f) => f.id))]));
  return unique.flatMap((id) => byId.get(id) ?? []);
}

const fulfillmentColumns = [
  'id',
  'order_id',
  'fulfillment_location_id',
  'status',
  'carrier_name',
  'service_level',
  'tracking_number',
  'tracking_url',
  'tracking_carrier_name',
  'tracking_service_level',
  'created_at',
  'updated_at',
] as const;

/** Fulfillments in the order of `ids`; ids that are unknown or another merchant's are left out. */
export async function loadFulfillments(db: Database, scope: Scope, ids: string[]): Promise<Fulfillment[]> {
  if (ids.length === 0) return [];
  const unique = [...new Set(ids)];
  const rows = await db.selectFrom('fulfillments').select(fulfillmentColumns).where(ofMerchant('fulfillments', scope)).where('id', 'in', unique).execute();
  if (rows.length === 0) return [];
  const items = await db
    .selectFrom('fulfillment_items')
    .select(['fulfillment_id', 'line_item_id', 'quantity'])
    .where(ofMerchant('fulfillment_items', scope))
    .where('fulfillment_id', 'in', rows.map((r) => r.id))
    .orderBy('fulfillment_id')
    .orderBy('position')
    .execute();
  const itemsOf = group(items, (i) => i.fulfillment_id);
  const byId = new Map(rows.map((f) => [f.id, presentFulfillment(f, itemsOf.get(f.id) ?? [])]));
  return unique.flatMap((id) => byId.get(id) ?? []);
}

/** The order's status without taking its lock (what a request finds when it arrives). */
export async function orderStatus(db: Database, scope: Scope, id: string) {
  const row = await db.selectFrom('orders').select('status').where(ofMerchant('orders', scope)).where('id', '=', id).executeTakeFirst();
  return row?.status ?? null;
}

/** The order row, locked for the rest of the transaction (fulfilling, cancelling). */
export function lockOrder(trx: Database, scope: Scope, id: string) {
  return trx
    .selectFrom('orders')
    .select(['id', 'status', 'fulfillment_location_id'])
    .where(ofMerchant('orders', scope))
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();
}

/** The lines of an order, for fulfilling and cancelling (the order row is locked by then). */
export function orderLines(trx: Database, scope: Scope, orderId: string) {
  return trx
    .selectFrom('order_line_items')
    .select(['id', 'variant_id', 'quantity', 'fulfilled_quantity'])
    .where(ofMerchant('order_line_items', scope))
    .where('order_id', '=', orderId)
    .orderBy('position')
    .execute();
}

export function addFulfilledQuantity(trx: Database, scope: Scope, lineId: string, delta: number) {
  return trx
    .updateTable('order_line_items')
    .set({ fulfilled_quantity: sql`fulfilled_quantity + ${delta}`, updated_at: sql`clock_timestamp()` })
    .where(ofMerchant('order_line_items', scope))
    .where('id', '=', lineId)
    .execute();
}

export function updateOrderState(trx: Database, scope: Scope, orderId: string, state: { fulfillment_status: OrderFulfillmentState; status?: 'closed' | 'cancelled' }) {
  return trx
    .updateTable('orders')
    .set({
      fulfillment_status: state.fulfillment_status,
      ...(state.status ? { status: state.status } : {}),
      ...(state.status === 'cancelled' ? { cancelled_at: sql`clock_timestamp()` } : {}),
      updated_at: sql`clock_timestamp()`,
    })
    .where(ofMerchant('orders', scope))
    .where('id', '=', orderId)
    .execute();
}

/** The order's pending fulfillments and, per line item, the quantity they hold. */
export async function pendingFulfillments(trx: Database, scope: Scope, orderId: string) {
  const ids = (
    await trx.selectFrom('fulfillments').select('id').where(ofMerchant('fulfillments', scope)).where('order_id', '=', orderId).where('status', '=', 'pending').execute()
  ).map((f) => f.id);
  const quantityByLine = new Map<string, number>();
  if (ids.length) {
    const items = await trx
      .selectFrom('fulfillment_items')
      .select(['line_item_id', 'quantity'])
      .where(ofMerchant('fulfillment_items', scope))
      .where('fulfillment_id', 'in', ids)
      .execute();
    for (const it of items) quantityByLine.set(it.line_item_id, (quantityByLine.get(it.line_item_id) ?? 0) + it.quantity);
  }
  return { ids, quantityByLine };
}

export async function cancelFulfillments(trx: Database, scope: Scope, ids: string[]) {
  if (ids.length === 0) return;
  await trx.updateTable('fulfillments').set({ status: 'cancelled', updated_at: sql`clock_timestamp()` }).where(ofMerchant('fulfillments', scope)).where('id', 'in', ids).execute();
}
