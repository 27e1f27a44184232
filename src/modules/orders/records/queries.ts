// The order book orders and fulfillments both build on: reading orders and fulfillments as the API
// shows them (one statement for any number of them, lists included), the order row's lock, its
// lines' fulfilled quantities, and the order's pending fulfillments. Every statement carries the
// merchant filter.
import { sql } from 'kysely';
import type { Database } from '../../../db/database.ts';
import { inIdOrder, lockRow } from '../../../db/rows.ts';
import { canSeeLocation, merchantScope, ofMerchant, type Scope } from '../../../db/scope.ts';
import { statement } from '../../../db/statement.ts';
import { isoSql, parseJson, type JsonText } from '../../../http/serialize.ts';
import { fulfillmentRecordJson, orderJson, orderLinesJson } from './present.ts';
import type { Fulfillment, Order, OrderFulfillmentState } from './schemas.ts';

/** A record as PostgreSQL built it, with what paging and the location rule read of it. */
interface RecordRow<T> {
  id: string;
  /** ISO text (the keyset position). */
  updated_at: string;
  fulfillment_location_id: string;
  json: JsonText<T>;
}

/** The scope's orders with their lines joined: what every read of orders selects from. */
const ordersOf = (db: Database, scope: Scope) =>
  db
    .selectFrom('orders')
    .leftJoinLateral(orderLinesJson, (join) => join.onTrue())
    .where(ofMerchant('orders', scope));
/**
 * Orders as the API shows them (JSON text), aggregated by PostgreSQL: one statement for a page or a
 * batch (readPage adds the keyset tail; loadOrders an id list).
 */
export const orderRecords = (db: Database, scope: Scope) =>
  ordersOf(db, scope).select(['orders.id', isoSql('orders.updated_at').as('updated_at'), 'orders.fulfillment_location_id', orderJson.as('json')]);

const orderRows = (db: Database, scope: Scope, ids: string[]) => inIdOrder(ids, (unique) => orderRecords(db, scope).where('orders.id', 'in', unique).execute());

/** Orders in the order of `ids`; ids that are unknown or another merchant's are left out. One statement. */
export const loadOrders = async (db: Database, scope: Scope, ids: string[]): Promise<Order[]> =>
  (await orderRows(db, scope, ids)).map((row) => parseJson(row.json));

/** The scope's fulfillments: what every read of fulfillments selects from. */
const fulfillmentsOf = (db: Database, scope: Scope) => db.selectFrom('fulfillments').where(ofMerchant('fulfillments', scope));
/** Fulfillments as the API shows them (JSON text), aggregated by PostgreSQL: one statement for a page or a batch. */
export const fulfillmentRecords = (db: Database, scope: Scope) =>
  fulfillmentsOf(db, scope).select([
    'fulfillments.id',
    isoSql('fulfillments.updated_at').as('updated_at'),
    'fulfillments.fulfillment_location_id',
    fulfillmentRecordJson.as('json'),
  ]);

const fulfillmentRows = (db: Database, scope: Scope, ids: string[]) =>
  inIdOrder(ids, (unique) => fulfillmentRecords(db, scope).where('fulfillments.id', 'in', unique).execute());

/** Fulfillments in the order of `ids`; ids that are unknown or another merchant's are left out. One statement. */
export const loadFulfillments = async (db: Database, scope: Scope, ids: string[]): Promise<Fulfillment[]> =>
  (await fulfillmentRows(db, scope, ids)).map((row) => parseJson(row.json));

/**
 * The statements of a GET by id (compiled once: db/statement.ts); the location rule is checked in
 * code. They read only the record and its location: every further column is one more field pg
 * describes, parses and copies into each answer's row.
 */
type ById = { merchantId: string; id: string };
const orderById = statement((db, v: ById) =>
  ordersOf(db, merchantScope(v.merchantId))
    .select(['orders.fulfillment_location_id', orderJson.as('json')])
    .where('orders.id', '=', v.id),
);
const fulfillmentById = statement((db, v: ById) =>
  fulfillmentsOf(db, merchantScope(v.merchantId))
    .select(['fulfillments.fulfillment_location_id', fulfillmentRecordJson.as('json')])
    .where('fulfillments.id', '=', v.id),
);

/**
 * One order or fulfillment as JSON text (`byId` is orderById or fulfillmentById), or null when it is
 * unknown, another merchant's, or at a location hidden from the scope: what a GET by id may show.
 */
async function visibleJson<T>(
  byId: (db: Database, v: ById) => Promise<Pick<RecordRow<T>, 'fulfillment_location_id' | 'json'>[]>,
  db: Database,
  scope: Scope,
  id: string,
): Promise<JsonText<T> | null> {
  const [record] = await byId(db, { merchantId: scope.merchantId, id });
  return record && canSeeLocation(scope, record.fulfillment_location_id) ? record.json : null;
}

export const visibleOrder = (db: Database, scope: Scope, id: string) => visibleJson<Order>(orderById, db, scope, id);
export const visibleFulfillment = (db: Database, scope: Scope, id: string) => visibleJson<Fulfillment>(fulfillmentById, db, scope, id);

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
 * with whether its variant still exists (a removed variant's line moves no stock). The variants
 * that exist stay locked against removal until the commit, in id order (see adjustmentTargets in
 * inventory/queries.ts): removed meanwhile, one is simply gone, never a foreign-key failure.
 */
export function orderLines(trx: Database, scope: Scope, orderId: string) {
  return trx
    .with('v', (db) =>
      db
        .selectFrom('variants')
        .select('variants.id')
        .where(ofMerchant('variants', scope))
        .where('variants.id', 'in', (sub) =>
          sub.selectFrom('order_line_items').select('variant_id').where(ofMerchant('order_line_items', scope)).where('order_id', '=', orderId),
        )
        .orderBy('variants.id')
        .forKeyShare(),
    )
    .selectFrom('order_line_items as l')
    .leftJoin('v', 'v.id', 'l.variant_id')
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
  // Locked (in id order), so tracking attached meanwhile (it locks only the fulfillment, not the
  // order) either commits first, and the shipped fulfillment is no longer read as pending, or waits
  // and then finds it cancelled (409). Unlocked, a fulfillment shipped in between was cancelled and
  // its units put back on hand.
  const rows = await trx
    .selectFrom('fulfillments as f')
    .leftJoin('fulfillment_items as i', (join) => join.onRef('i.fulfillment_id', '=', 'f.id').on(ofMerchant('i', scope)))
    .select(['f.id', 'i.line_item_id', 'i.quantity'])
    .where(ofMerchant('f', scope))
    .where('f.order_id', '=', orderId)
    .where('f.status', '=', 'pending')
    .orderBy('f.id')
    .forUpdate('f')
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
    .where('status', '=', 'pending')
    .execute();
}
