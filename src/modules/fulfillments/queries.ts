// Statements of the fulfillments routes (reading fulfillments as the API shows them is the order
// book's: ../orders/records/queries.ts). Every statement carries the merchant filter.
import { sql } from 'kysely';
import type { Database } from '../../db/database.ts';
import { atVisibleLocation, ofMerchant, type Scope } from '../../db/scope.ts';
import { readPage, type PageRequest } from '../../http/paging.ts';
import type { FulfillmentFilters, TrackingInput } from './schemas.ts';

/** One page of fulfillment positions, limited to the caller's locations. */
export function selectFulfillmentPage(db: Database, scope: Scope, page: PageRequest, f: FulfillmentFilters) {
  let q = db
    .selectFrom('fulfillments')
    .select(['id', 'updated_at'])
    .where(ofMerchant('fulfillments', scope))
    .where(atVisibleLocation('fulfillments.fulfillment_location_id', scope));
  if (f.status) q = q.where('status', '=', f.status);
  return readPage(q, 'fulfillments', page, f.updated_after);
}

export async function insertFulfillment(
  trx: Database,
  scope: Scope,
  f: { orderId: string; locationId: string; carrierName: string | null; serviceLevel: string | null; items: [lineItemId: string, quantity: number][] },
): Promise<string> {
  const { id } = await trx
    .insertInto('fulfillments')
    .values({
      merchant_id: scope.merchantId,
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
    .values(f.items.map(([lineItemId, quantity], position) => ({ merchant_id: scope.merchantId, fulfillment_id: id, line_item_id: lineItemId, position, quantity })))
    .execute();
  return id;
}

/** The fulfillment row, locked for the rest of the transaction. */
export function lockFulfillment(trx: Database, scope: Scope, id: string) {
  return trx
    .selectFrom('fulfillments')
    .select(['id', 'status', 'fulfillment_location_id'])
    .where(ofMerchant('fulfillments', scope))
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();
}

export function setTracking(trx: Database, scope: Scope, id: string, t: TrackingInput) {
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
    .where(ofMerchant('fulfillments', scope))
    .where('id', '=', id)
    .execute();
}
