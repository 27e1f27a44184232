// Statements of the fulfillments routes (reading fulfillments as the API shows them is the order
// book's: ../orders/records/queries.ts). Every statement carries the merchant filter.
import { sql } from 'kysely';
import type { Database } from '../../db/database.ts';
import { lockRow, updateRow } from '../../db/rows.ts';
import { atVisibleLocation, scopeValues, type Scope } from '../../db/scope.ts';
import { statement } from '../../db/statement.ts';
import { finishPage, keysetPage, pageValues, type PageRequest, type PageValues } from '../../http/paging.ts';
import { parseJson, type JsonText } from '../../http/serialize.ts';
import { fulfillmentJson, type FulfillmentItemJson } from '../orders/records/present.ts';
import { fulfillmentRecords } from '../orders/records/queries.ts';
import type { Fulfillment } from '../orders/records/schemas.ts';
import type { FulfillmentFilters, TrackingInput } from './schemas.ts';

const fulfillmentPage = statement((db, v: Scope & PageValues & { status: NonNullable<FulfillmentFilters['status']> | null }) => {
  let q = fulfillmentRecords(db, v).where(atVisibleLocation('fulfillments.fulfillment_location_id', v));
  if (v.status !== null) q = q.where('fulfillments.status', '=', v.status);
  return keysetPage(q, 'fulfillments', v);
});

/** One page of fulfillments as the API shows them, limited to the caller's locations: one statement. */
export async function selectFulfillmentPage(db: Database, scope: Scope, page: PageRequest, f: FulfillmentFilters) {
  const rows = await fulfillmentPage(db, {
    ...scopeValues(scope),
    status: f.status ?? null,
    ...pageValues(page, f.updated_after),
  });
  const { items, meta } = finishPage(page, rows);
  return { items: items.map((row) => row.json), meta };
}

/** The fulfillment and all its items in one statement; answers it as the API shows it. */
export async function insertFulfillment(
  trx: Database,
  scope: Scope,
  f: { orderId: string; locationId: string; carrierName: string | null; serviceLevel: string | null; items: FulfillmentItemJson[] },
): Promise<Fulfillment> {
  const items = JSON.stringify(f.items.map((it, position) => ({ ...it, position })));
  const { rows } = await sql<{ json: JsonText<Fulfillment> }>`
    with fulfillment as (
      insert into fulfillments (merchant_id, order_id, fulfillment_location_id, carrier_name, service_level)
      values (${scope.merchantId}::uuid, ${f.orderId}::uuid, ${f.locationId}::uuid, ${f.carrierName}, ${f.serviceLevel})
      returning *
    ), items as (
      insert into fulfillment_items (merchant_id, fulfillment_id, line_item_id, position, quantity)
      select ${scope.merchantId}::uuid, fulfillment.id, i.merchant_order_item_id, i.position, i.quantity
        from fulfillment, jsonb_to_recordset(${items}::jsonb) as i(merchant_order_item_id uuid, position int, quantity int)
       order by i.position
    )
    select ${fulfillmentJson('fulfillment', sql`${JSON.stringify(f.items)}::json`)} as json from fulfillment`.execute(trx);
  return parseJson(rows[0].json);
}

/** The fulfillment row, locked for the rest of the transaction. */
export function lockFulfillment(trx: Database, scope: Scope, id: string) {
  return lockRow(trx, scope, 'fulfillments', id, ['id', 'status', 'fulfillment_location_id']);
}

export function setTracking(trx: Database, scope: Scope, id: string, t: TrackingInput) {
  return updateRow(trx, scope, 'fulfillments', id, {
    status: 'shipped',
    tracking_number: t.tracking_number,
    tracking_url: t.tracking_url ?? null,
    tracking_carrier_name: t.carrier_name ?? null,
    tracking_service_level: t.service_level ?? null,
  });
}
