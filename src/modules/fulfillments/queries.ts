// Fulfillments as the API shows them, loaded in batches: two queries for any number of them.
import { sql } from 'kysely';
import type { Database } from '../../db/database.ts';
import { afterPosition, type PageRequest } from '../../http/paging.ts';
import { iso } from '../../http/serialize.ts';
import { NO_ID } from '../inventory/queries.ts';
import { group } from '../orders/queries.ts';

const columns = [
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
export async function loadFulfillments(db: Database, merchantId: string, ids: string[]) {
  if (ids.length === 0) return [];
  const unique = [...new Set(ids)];
  const rows = await db.selectFrom('fulfillments').select(columns).where('merchant_id', '=', merchantId).where('id', 'in', unique).execute();
  if (rows.length === 0) return [];
  const items = await db
    .selectFrom('fulfillment_items')
    .select(['fulfillment_id', 'line_item_id', 'quantity'])
    .where('merchant_id', '=', merchantId)
    .where(
      'fulfillment_id',
      'in',
      rows.map((r) => r.id),
    )
    .orderBy('fulfillment_id')
    .orderBy('position')
    .execute();
  const itemsOf = group(items, (i) => i.fulfillment_id);
  const byId = new Map(
    rows.map((f) => [
      f.id,
      {
        id: f.id,
        merchant_order_id: f.order_id,
        fulfillment_location_id: f.fulfillment_location_id,
        status: f.status,
        carrier_name: f.carrier_name,
        service_level: f.service_level,
        tracking:
          f.tracking_number === null
            ? null
            : {
                tracking_number: f.tracking_number,
                tracking_url: f.tracking_url,
                carrier_name: f.tracking_carrier_name,
                service_level: f.tracking_service_level,
              },
        items: (itemsOf.get(f.id) ?? []).map((i) => ({ merchant_order_item_id: i.line_item_id, quantity: i.quantity })),
        created_at: iso(f.created_at),
        updated_at: iso(f.updated_at),
      },
    ]),
  );
  return unique.flatMap((id) => (byId.has(id) ? [byId.get(id)!] : []));
}
export type Fulfillment = Awaited<ReturnType<typeof loadFulfillments>>[number];

export interface FulfillmentFilters {
  status?: 'pending' | 'shipped' | 'cancelled';
  updated_after?: string;
}

export async function selectFulfillmentPage(db: Database, merchantId: string, locationIds: string[] | null, page: PageRequest, f: FulfillmentFilters) {
  let q = db.selectFrom('fulfillments').select(['id', 'updated_at']).where('merchant_id', '=', merchantId).where(afterPosition('fulfillments', page.after));
  if (locationIds) q = q.where('fulfillment_location_id', 'in', locationIds.length ? locationIds : [NO_ID]);
  if (f.status) q = q.where('status', '=', f.status);
  if (f.updated_after) q = q.where('updated_at', '>', new Date(f.updated_after));
  return q.orderBy('updated_at').orderBy('id').limit(page.limit + 1).execute();
}

/** The order's pending fulfillments and, per line item, the quantity they hold. */
export async function pendingFulfillments(trx: Database, merchantId: string, orderId: string) {
  const ids = (
    await trx.selectFrom('fulfillments').select('id').where('merchant_id', '=', merchantId).where('order_id', '=', orderId).where('status', '=', 'pending').execute()
  ).map((f) => f.id);
  const quantityByLine = new Map<string, number>();
  if (ids.length) {
    const items = await trx.selectFrom('fulfillment_items').select(['line_item_id', 'quantity']).where('merchant_id', '=', merchantId).where('fulfillment_id', 'in', ids).execute();
    for (const it of items) quantityByLine.set(it.line_item_id, (quantityByLine.get(it.line_item_id) ?? 0) + it.quantity);
  }
  return { ids, quantityByLine };
}

export async function cancelFulfillments(trx: Database, merchantId: string, ids: string[]) {
  if (ids.length === 0) return;
  await trx.updateTable('fulfillments').set({ status: 'cancelled', updated_at: sql`clock_timestamp()` }).where('merchant_id', '=', merchantId).where('id', 'in', ids).execute();
}

export async function insertFulfillment(
  trx: Database,
  f: { merchantId: string; orderId: string; locationId: string; carrierName: string | null; serviceLevel: string | null; items: [lineItemId: string, quantity: number][] },
): Promise<string> {
  const { id } = await trx
    .insertInto('fulfillments')
    .values({
      merchant_id: f.merchantId,
      order_id: f.orderId,
      fulfillment_location_id: f.locationId,
      carrier_name: f.carrierName,
      service_level: f.serviceLevel,
      tracking_number: null,
      tracking_url: null,
      tracking_carrier_name: null,
      tracking_service_level: null,
    })
    .returning(['id'])
    .executeTakeFirstOrThrow();
  await trx
    .insertInto('fulfillment_items')
    .values(f.items.map(([lineItemId, quantity], position) => ({ merchant_id: f.merchantId, fulfillment_id: id, line_item_id: lineItemId, position, quantity })))
    .execute();
  return id;
}

/** The fulfillment row, locked for the rest of the transaction. */
export function lockFulfillment(trx: Database, merchantId: string, id: string) {
  return trx.selectFrom('fulfillments').select(['id', 'status', 'fulfillment_location_id']).where('merchant_id', '=', merchantId).where('id', '=', id).forUpdate().executeTakeFirst();
}

export function setTracking(
  trx: Database,
  merchantId: string,
  id: string,
  t: { tracking_number: string; tracking_url?: string; carrier_name?: string; service_level?: string },
) {
  return trx
    .updateTable('fulfillments')
    .set({
      status: 'shipped',
      tracking_number: t.tracking_number,
      tracking_url: t.tracking_url ?? null,
      tracking_carrier_name: t.carrier_name ?? null,
      tracking_service_level: t.service_level ?? null,
      updated_at: sql`clock_timestamp()`,
    })
    .where('merchant_id', '=', merchantId)
    .where('id', '=', id)
    .execute();
}
