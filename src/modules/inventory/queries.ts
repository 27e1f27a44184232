// Inventory rows (one per variant and location) and the ledger of every movement. Stock only ever
// changes through moveStock: a batch of movements in two statements whatever its size (the ledger
// rows, then one atomic upsert `on_hand = on_hand + Δ` per row touched). Every statement carries
// the merchant filter.
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Database } from '../../db/database.ts';
import { columnsOf, frozen, jsonObject } from '../../db/fragment.ts';
import { atVisibleLocation, ofMerchant, scopeValues, type Scope } from '../../db/scope.ts';
import { Inlined, statement } from '../../db/statement.ts';
import { finishPage, keysetPage, pageValues, type PageRequest, type PageValues } from '../../http/paging.ts';
import type { LocatedEvent } from '../../events/outbox.ts';
import { isoSql, parseJson, type JsonText } from '../../http/serialize.ts';
import type { InventoryFilters, InventoryRow } from './schemas.ts';

export type StockCause = 'order' | 'fulfillment' | 'cancellation' | 'adjustment';

export interface StockMove {
  variantId: string;
  locationId: string;
  onHandDelta: number;
  committedDelta: number;
  cause: StockCause;
  referenceId: string | null;
  reason?: string | null;
  apiKeyId?: string | null;
}

/**
 * The bound of an inventory row's numbers: on_hand at most this (adjustments), committed at most
 * this (order intake), on_hand at least minus this (fulfillments of stock not there). One write
 * moves at most 100 × 1,000,000 (adjustments) or 250 × 100,000 units (an order's lines), so a row
 * at a bound plus a whole write, and available (on_hand - committed), still fit the int columns:
 * a write past a bound is refused by name (422 out_of_range), never a 500 from PostgreSQL's
 * arithmetic.
 */
export const STOCK_BOUND = 1_000_000_000;

/** The key of an inventory row among a batch's results. */
export const levelKey = (variantId: string, locationId: string) => `${variantId}|${locationId}`;

/**
 * An inventory row as the API shows it, built by PostgreSQL as JSON text (keys in the schema's
 * order): `level` is the inventory_levels row (a table, a CTE or a subquery with its columns),
 * `variant` its variant (or the same subquery, with the variant's product_id and sku).
 */
const inventoryJson = (level: string, variant: string) =>
  frozen(
    sql<JsonText<InventoryRow>>`${jsonObject({
      ...columnsOf(level, { id: 'id', variant_id: 'variant_id' }),
      ...columnsOf(variant, { product_id: 'product_id', sku: 'sku' }),
      ...columnsOf(level, { fulfillment_location_id: 'location_id', on_hand: 'on_hand', committed: 'committed' }),
      available: sql`${sql.ref(`${level}.on_hand`)}::bigint - ${sql.ref(`${level}.committed`)}`,
      updated_at: isoSql(`${level}.updated_at`),
    })}::text`,
  );
const MOVED_LEVEL_JSON = inventoryJson('level', 'variants');

/**
 * Apply a batch of movements: one ledger row per movement (ids ascending in the batch's order, so
 * (created_at, id) reads them back in that order), then one upsert per (variant, location) with
 * the summed deltas, creating a row the first time a pair is touched. The upsert takes the rows
 * in (variant_id, location_id) order, so concurrent batches lock in one order and never deadlock;
 * the locks are held from here to the commit. Answers every touched row as the API shows it after
 * the batch, by levelKey.
 */
export async function moveStock(trx: Database, scope: Scope, moves: StockMove[]): Promise<Map<string, InventoryRow>> {
  if (moves.length === 0) return new Map();
  const ids = moves.map(() => randomUUID()).sort();
  const ledger = moves.map((m, i) => ({
    id: ids[i],
    ord: i,
    variant_id: m.variantId,
    location_id: m.locationId,
    on_hand_delta: m.onHandDelta,
    committed_delta: m.committedDelta,
    cause: m.cause,
    reference_id: m.referenceId,
    reason: m.reason ?? null,
    api_key_id: m.apiKeyId ?? null,
  }));
  await sql`
    insert into inventory_ledger (id, merchant_id, variant_id, location_id, on_hand_delta, committed_delta, cause, reference_id, reason, api_key_id)
    select m.id, ${scope.merchantId}::uuid, m.variant_id, m.location_id, m.on_hand_delta, m.committed_delta, m.cause, m.reference_id, m.reason, m.api_key_id
      from jsonb_to_recordset(${JSON.stringify(ledger)}::jsonb)
        as m(id uuid, ord int, variant_id uuid, location_id uuid, on_hand_delta int, committed_delta int, cause text, reference_id uuid, reason text, api_key_id uuid)
     order by m.ord`.execute(trx);
  const { rows } = await sql<{ variant_id: string; location_id: string; json: JsonText<InventoryRow> }>`
    with level as (
      insert into inventory_levels as l (merchant_id, variant_id, location_id, on_hand, committed)
      select ${scope.merchantId}::uuid, m.variant_id, m.location_id, sum(m.on_hand_delta), sum(m.committed_delta)
        from jsonb_to_recordset(${JSON.stringify(ledger)}::jsonb) as m(variant_id uuid, location_id uuid, on_hand_delta int, committed_delta int)
       group by m.variant_id, m.location_id
       order by m.variant_id, m.location_id
      on conflict (variant_id, location_id) do update
         -- Kept within int rather than failing: a row already beyond STOCK_BOUND (stored before the
         -- bounds) then ends at int's limit, which the service's checks refuse by name.
         set on_hand = greatest(least(l.on_hand::bigint + excluded.on_hand, 2147483647), -2147483648),
             committed = greatest(least(l.committed::bigint + excluded.committed, 2147483647), -2147483648),
             updated_at = clock_timestamp()
       where ${ofMerchant('l', scope)}
      returning l.id, l.variant_id, l.location_id, l.on_hand, l.committed, l.updated_at
    )
    select level.variant_id, level.location_id, ${MOVED_LEVEL_JSON} as json
      from level
      join variants on variants.id = level.variant_id and ${ofMerchant('variants', scope)}`.execute(trx);
  return new Map(rows.map((r) => [levelKey(r.variant_id, r.location_id), parseJson(r.json)]));
}

/**
 * The rows of variants whose SKU changed: a row shows its variant's SKU, so its updated_at moves
 * on (a sync by updated_after finds it) and it is answered as the API now shows it, for its event.
 */
export async function touchVariantLevels(trx: Database, scope: Scope, variantIds: string[]): Promise<InventoryRow[]> {
  if (variantIds.length === 0) return [];
  const { rows } = await sql<{ json: JsonText<InventoryRow> }>`
    with level as (
      -- Locked in (variant_id, location_id) order first, as moveStock's upsert locks them: in the
      -- table's order, a rename racing an adjustment batch over the same rows deadlocked (a 500).
      update inventory_levels as l set updated_at = clock_timestamp()
       where l.id in (
         select k.id from inventory_levels k
          where ${ofMerchant('k', scope)} and k.variant_id in (${sql.join(variantIds)})
          order by k.variant_id, k.location_id
            for update)
      returning l.id, l.variant_id, l.location_id, l.on_hand, l.committed, l.updated_at
    )
    select ${MOVED_LEVEL_JSON} as json
      from level
      join variants on variants.id = level.variant_id and ${ofMerchant('variants', scope)}
     order by level.variant_id, level.location_id`.execute(trx);
  return rows.map((r) => parseJson(r.json));
}

/** inventory.updated once per changed row, with the row as GET /inventory shows it. */
export const inventoryUpdated = (rows: Iterable<InventoryRow>): LocatedEvent[] =>
  [...rows].map((row) => ({ type: 'inventory.updated', locationId: row.fulfillment_location_id, object: row }));

const PAGE_JSON = inventoryJson('page', 'page');

// The page's rows first (filters, keyset, limit), then the JSON of those rows only. With the JSON
// in the same select, PostgreSQL built it below its sort whenever it chose to sort (as it may when
// the merchant's rows are a few pages: 600 rows, a page of 250), for every row rather than the
// page's (2.3 ms against 1.4 there); it counts the JSON as a few cheap operators.
const inventoryPage = statement(
  (db, v: Scope & PageValues & { id: string | null; variantId: string | null; sku: string | null; locationId: string | null }) => {
    let q = db
      .selectFrom('inventory_levels')
      .innerJoin('variants', 'variants.id', 'inventory_levels.variant_id')
      .select([
        'inventory_levels.id',
        'inventory_levels.variant_id',
        'inventory_levels.location_id',
        'inventory_levels.on_hand',
        'inventory_levels.committed',
        'inventory_levels.updated_at',
        'variants.product_id',
        'variants.sku',
      ])
      .where(ofMerchant('inventory_levels', v))
      // The variant's own merchant filter lets `?sku=` start from variants_sku (merchant_id, sku).
      .where(ofMerchant('variants', v))
      .where(atVisibleLocation('inventory_levels.location_id', v));
    if (v.id !== null) q = q.where('inventory_levels.id', '=', v.id);
    if (v.variantId !== null) q = q.where('inventory_levels.variant_id', '=', v.variantId);
    if (v.sku !== null) q = q.where('variants.sku', '=', v.sku);
    if (v.locationId !== null) q = q.where('inventory_levels.location_id', '=', v.locationId);
    return db
      .selectFrom(keysetPage(q, 'inventory_levels', v).as('page'))
      .select(['page.id', isoSql('page.updated_at').as('updated_at'), PAGE_JSON.as('json')])
      .orderBy('page.updated_at')
      .orderBy('page.id');
  },
);

/** One page of inventory rows as the API shows them, limited to the caller's locations: one statement. */
export async function selectInventoryPage(db: Database, scope: Scope, page: PageRequest, f: InventoryFilters) {
  const rows = await inventoryPage(db, {
    ...scopeValues(scope),
    id: null,
    variantId: f.variant_id || null,
    sku: f.sku ?? null,
    locationId: f.location_id || null,
    ...pageValues(page, f.updated_after),
  });
  const { items, meta } = finishPage(page, rows);
  return { items: items.map((row) => row.json), meta };
}

/** One inventory row as the API shows it, if it is the merchant's and at one of the caller's locations. */
export async function selectInventoryRow(db: Database, scope: Scope, id: string) {
  const [row] = await inventoryPage(db, {
    ...scopeValues(scope),
    id,
    variantId: null,
    sku: null,
    locationId: null,
    afterUpdatedAt: null,
    afterId: null,
    updatedAfter: null,
    fetch: new Inlined(1),
  });
  return row?.json;
}

/** `column in (values)`, or false for no values. */
const among = (column: string, values: string[]) => (values.length ? sql<boolean>`${sql.ref(column)} in (${sql.join(values)})` : sql<boolean>`false`);

/** The merchant's locations among these ids. */
export async function knownLocations(db: Database, scope: Scope, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db
    .selectFrom('locations')
    .select('id')
    .where(ofMerchant('locations', scope))
    .where(among('locations.id', [...new Set(ids)]))
    .execute();
  return new Set(rows.map((r) => r.id));
}

/**
 * What an adjustment batch names, in one statement: the merchant's locations among `locationIds`,
 * and its variants among `variantIds` or carrying one of `skus` (native and connected: a SKU may
 * be ambiguous). The variants found stay locked against removal until the commit (`for key share`,
 * in id order, as every stock write takes them): a product PATCH removing one waits, and one that
 * removed it first makes it unknown here, never a foreign-key failure in moveStock.
 */
export async function adjustmentTargets(db: Database, scope: Scope, names: { locationIds: string[]; variantIds: string[]; skus: string[] }) {
  const { rows } = await sql<{ kind: 'location' | 'variant'; id: string; sku: string | null }>`
    with variant as (
      select variants.id, variants.sku
        from variants
       where ${ofMerchant('variants', scope)} and (${among('variants.id', names.variantIds)} or ${among('variants.sku', names.skus)})
       order by variants.id
         for key share
    )
    select 'location' as kind, locations.id, null as sku
      from locations
     where ${ofMerchant('locations', scope)} and ${among('locations.id', [...new Set(names.locationIds)])}
    union all
    select 'variant', variant.id, variant.sku from variant`.execute(db);
  const locations = new Set(rows.flatMap((r) => (r.kind === 'location' ? [r.id] : [])));
  const variants = rows.filter((r) => r.kind === 'variant');
  return { locations, variants };
}
