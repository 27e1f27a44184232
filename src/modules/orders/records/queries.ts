// The order book orders and fulfillments both build on: reading orders and fulfillments as the API
// shows them (one statement for any number of them, lists included), the order row's lock, its
// lines' fulfilled quantities, and the order's pending fulfillments. Every statement carries the
// merchant filter.
import { sql } from 'kysely';
import type { Database } from '../../../db/database.ts';
import { lockRow } from '../../../db/rows.ts';
import { canSeeLocation, ofMerchant, type Scope } from '../../../db/scope.ts';
import { presentFulfillment, presentOrder, type FulfillmentItemJson, type OrderLineJson } from './present.ts';
import type { Fulfillment, Order, OrderFulfillmentState } from './schemas.ts';

/**
 * The records of `ids` in the order of `ids` (each id once), presented; ids `read` finds no row
 * for are left out. `read` gets the distinct ids and runs one statement; none for an empty list.
 */
async function inIdOrder<R extends { id: string }, T>(ids: string[], read: (unique: string[]) => Promise<R[]>, present: (row: R) => T): Promise<T[]> {
  if (ids.length === 0) return [];
  const unique = [...new Set(ids)];
  const byId = new Map((await read(unique)).map((row) => [row.id, present(row)]));
  return unique.flatMap((id) => byId.get(id) ?? []);
}

/**
 * Orders with their lines and fulfillment ids, aggregated by PostgreSQL: one statement for a page
 * or a batch (readPage adds the keyset tail; loadOrders an id list).
 */
export const orderRecords = (db: Database, scope: Scope) =>
  db
    .selectFrom('orders')
    .select([
      'orders.id',
      'orders.order_number',
      'orders.status',
      'orders.fulfillment_status',
      'orders.fulfillment_location_id',
      'orders.currency',
      'orders.total_price',
      'orders.customer',
      'orders.shipping_address',
      'orders.created_at',
      'orders.updated_at',
      sql<OrderLineJson[]>`(
        select coalesce(json_agg(json_build_object(
                 'id', l.id, 'product_id', l.product_id, 'variant_id', l.variant_id, 'sku', l.sku, 'title', l.title,
                 'variant_title', l.variant_title, 'quantity', l.quantity, 'fulfilled_quantity', l.fulfilled_quantity, 'price', l.price
               ) order by l.position), '[]')
          from order_line_items l
         where ${ofMerchant('l', scope)} and l.order_id = orders.id)`.as('lines'),
      sql<string[]>`(
        select coalesce(json_agg(f.id order by f.created_at, f.id), '[]')
          from fulfillments f
         where ${ofMerchant('f', scope)} and f.order_id = orders.id)`.as('fulfillment_ids'),
    ])
    .where(ofMerchant('orders', scope));

/** Orders in the order of `ids`; ids that are unknown or another merchant's are left out. One statement. */
export const loadOrders = (db: Database, scope: Scope, ids: string[]): Promise<Order[]> =>
  inIdOrder(ids, (unique) => orderRecords(db, scope).where('orders.id', 'in', unique).execute(), presentOrder);

/** Fulfillments with their items, aggregated by PostgreSQL: one statement for a page or a batch. */
export const fulfillmentRecords = (db: Database, scope: Scope) =>
  db
    .selectFrom('fulfillments')
    .select([
      'fulfillments.id',
      'fulfillments.order_id',
      'fulfillments.fulfillment_location_id',
      'fulfillments.status',
      'fulfillments.carrier_name',
      'fulfillments.service_level',
      'fulfillments.tracking_number',
      'fulfillments.tracking_url',
      'fulfillments.tracking_carrier_name',
      'fulfillments.tracking_service_level',
      'fulfillments.created_at',
      'fulfillments.updated_at',
      sql<FulfillmentItemJson[]>`(
        select coalesce(json_agg(json_build_object('merchant_order_item_id', i.line_item_id, 'quantity', i.quantity) order by i.position), '[]')
          from fulfillment_items i
         where ${ofMerchant('i', scope)} and i.fulfillment_id = fulfillments.id)`.as('items'),
    ])
    .where(ofMerchant('fulfillments', scope));

/** Fulfillments in the order of `ids`; ids that are unknown or another merchant's are left out. One statement. */
export const loadFulfillments = (db: Database, scope: Scope, ids: string[]): Promise<Fulfillment[]> =>
  inIdOrder(ids, (unique) => fulfillmentRecords(db, scope).where('fulfillments.id', 'in', unique).execute(), presentFulfillment);

/**
 * One order or fulfillment (`load` is loadOrders or loadFulfillments), or null when it is unknown,
 * another merchant's, or at a location hidden from the scope: what a GET by id may show.
 */
export async function loadVisible<T extends { fulfillment_location_id: string }>(
  load: (db: Database, scope: Scope, ids: string[]) => Promise<T[]>,
  db: Database,
  scope: Scope,
  id: string,
): Promise<T | null> {
  const [record] = await load(db, scope, [id]);
  return record && canSeeLocation(scope, record.fulfillment_location_id) ? record : null;
}

/** The order's status without taking its lock (what a request finds when it arrives). */
export async function orderStatus(db: Database, scope: Scope, id: string) {
  const row = await db.selectFrom('orders').select('status').where(ofMerchant('orders', scope)).where('id', '=', id).executeTakeFirst();
  return row?.status ?? null;
}

/** The order row, locked for the rest of the transaction (fulfilling, cancelling). */
export function lockOrder(trx: Database, scope: Scope, id: string) {
  return lockRow(trx, scope, 'orders', id, ['id', 'status', 'fulfillment_location_id']);
}

/**
 * The lines of an order, for fulfilling and cancelling (the order row is locked by then), each
 * with whether its variant still exists (a removed variant's line moves no stock).
 */
export function orderLines(trx: Database, scope: Scope, orderId: string) {
  return trx
    .selectFrom('order_line_items as l')
    .leftJoin('variants as v', (join) => join.onRef('v.id', '=', 'l.variant_id').on(ofMerchant('v', scope)))
    .select(['l.id', 'l.variant_id', 'l.quantity', 'l.fulfilled_quantity', sql<boolean>`v.id is not null`.as('variant_exists')])
    .where(ofMerchant('l', scope))
    .where('l.order_id', '=', orderId)
    .orderBy('l.position')
    .execute();
}

/** Change the fulfilled quantity of several lines in one statement: `[line id, delta]`. */
export async function addFulfilledQuantities(trx: Database, scope: Scope, deltas: [lineId: string, delta: number][]) {
  if (deltas.length === 0) return;
  const rows = JSON.stringify(deltas.map(([id, delta]) => ({ id, delta })));
  await sql`
    update order_line_items l
       set fulfilled_quantity = l.fulfilled_quantity + d.delta, updated_at = clock_timestamp()
      from jsonb_to_recordset(${rows}::jsonb) as d(id uuid, delta int)
     where ${ofMerchant('l', scope)} and l.id = d.id`.execute(trx);
}

export function updateOrderState(
  trx: Database,
  scope: Scope,
  orderId: string,
  state: { fulfillment_status: OrderFulfillmentState; status?: 'closed' | 'cancelled' },
) {
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

/** The order's pending fulfillments and, per line item, the quantity they hold. One statement. */
export async function pendingFulfillments(trx: Database, scope: Scope, orderId: string) {
  const rows = await trx
    .selectFrom('fulfillments as f')
    .leftJoin('fulfillment_items as i', (join) => join.onRef('i.fulfillment_id', '=', 'f.id').on(ofMerchant('i', scope)))
    .select(['f.id', 'i.line_item_id', 'i.quantity'])
    .where(ofMerchant('f', scope))
    .where('f.order_id', '=', orderId)
    .where('f.status', '=', 'pending')
    .execute();
  const quantityByLine = new Map<string, number>();
  for (const it of rows) if (it.line_item_id !== null) quantityByLine.set(it.line_item_id, (quantityByLine.get(it.line_item_id) ?? 0) + (it.quantity ?? 0));
  return { ids: [...new Set(rows.map((r) => r.id))], quantityByLine };
}

export async function cancelFulfillments(trx: Database, scope: Scope, ids: string[]) {
  if (ids.length === 0) return;
  await trx
    .updateTable('fulfillments')
    .set({ status: 'cancelled', updated_at: sql`clock_timestamp()` })
    .where(ofMerchant('fulfillments', scope))
    .where('id', 'in', ids)
    .execute();
}
