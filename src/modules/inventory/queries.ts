// Inventory rows (one per variant and location) and the ledger of every movement. Stock only ever
// changes through moveStock: one atomic upsert (`on_hand = on_hand + delta`) plus its ledger row.
// Every statement carries the merchant filter.
import { sql } from 'kysely';
import type { Database } from '../../db/database.ts';
import { atVisibleLocation, ofMerchant, type Scope } from '../../db/scope.ts';
import { readPage, type PageRequest } from '../../http/paging.ts';
import { iso } from '../../http/serialize.ts';
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

export interface LevelState {
  id: string;
  on_hand: number;
  committed: number;
}

/** Apply one movement (creating the row the first time the pair is touched) and ledger it. */
export async function moveStock(trx: Database, scope: Scope, m: StockMove): Promise<LevelState> {
  const row = await trx
    .insertInto('inventory_levels')
    .values({ merchant_id: scope.merchantId, variant_id: m.variantId, location_id: m.locationId, on_hand: m.onHandDelta, committed: m.committedDelta })
    .onConflict((oc) =>
      oc
        .columns(['variant_id', 'location_id'])
        .doUpdateSet({
          on_hand: sql`inventory_levels.on_hand + excluded.on_hand`,
          committed: sql`inventory_levels.committed + excluded.committed`,
          updated_at: sql`clock_timestamp()`,
        })
        .where(ofMerchant('inventory_levels', scope)),
    )
    .returning(['id', 'on_hand', 'committed'])
    .executeTakeFirstOrThrow();
  await trx
    .insertInto('inventory_ledger')
    .values({
      merchant_id: scope.merchantId,
      variant_id: m.variantId,
      location_id: m.locationId,
      on_hand_delta: m.onHandDelta,
      committed_delta: m.committedDelta,
      cause: m.cause,
      reference_id: m.referenceId,
      reason: m.reason ?? null,
      api_key_id: m.apiKeyId ?? null,
    })
    .execute();
  return row;
}

/** Movements in a stable (variant, location) order, so concurrent writers lock rows in one order. */
export function inStableOrder<T extends { variantId: string; locationId: string }>(moves: T[]): T[] {
  const key = (m: T) => `${m.variantId}|${m.locationId}`;
  return moves
    .map((m, i) => ({ m, i }))
    .sort((a, b) => (key(a.m) < key(b.m) ? -1 : key(a.m) > key(b.m) ? 1 : a.i - b.i))
    .map((x) => x.m);
}

/** Variants of the merchant that still exist, among these ids (removed ones move no stock). */
export async function existingVariants(db: Database, scope: Scope, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db.selectFrom('variants').select('id').where(ofMerchant('variants', scope)).where('id', 'in', [...new Set(ids)]).execute();
  return new Set(rows.map((r) => r.id));
}

const rowColumns = [
  'inventory_levels.id',
  'inventory_levels.variant_id',
  'variants.product_id',
  'variants.sku',
  'inventory_levels.location_id',
  'inventory_levels.on_hand',
  'inventory_levels.committed',
  'inventory_levels.updated_at',
] as const;

interface InventoryRowData {
  id: string;
  variant_id: string;
  product_id: string;
  sku: string | null;
  location_id: string;
  on_hand: number;
  committed: number;
  updated_at: Date;
}

export const presentInventoryRow = (r: InventoryRowData): InventoryRow => ({
  id: r.id,
  variant_id: r.variant_id,
  product_id: r.product_id,
  sku: r.sku,
  fulfillment_location_id: r.location_id,
  on_hand: r.on_hand,
  committed: r.committed,
  available: r.on_hand - r.committed,
  updated_at: iso(r.updated_at),
});

const levels = (db: Database, scope: Scope) =>
  db.selectFrom('inventory_levels').innerJoin('variants', 'variants.id', 'inventory_levels.variant_id').select(rowColumns).where(ofMerchant('inventory_levels', scope));

/** Inventory rows as the API shows them, in the order of `ids` (unknown ids are left out). One query. */
export async function loadInventoryRows(db: Database, scope: Scope, ids: string[]): Promise<InventoryRow[]> {
  if (ids.length === 0) return [];
  const rows = await levels(db, scope).where('inventory_levels.id', 'in', [...new Set(ids)]).execute();
  const byId = new Map(rows.map((r) => [r.id, presentInventoryRow(r)]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

/** One page of inventory rows as the API shows them, limited to the caller's locations. */
export async function selectInventoryPage(db: Database, scope: Scope, page: PageRequest, f: InventoryFilters) {
  let q = levels(db, scope).where(atVisibleLocation('inventory_levels.location_id', scope));
  if (f.variant_id) q = q.where('inventory_levels.variant_id', '=', f.variant_id);
  if (f.sku !== undefined) q = q.where('variants.sku', '=', f.sku);
  if (f.location_id) q = q.where('inventory_levels.location_id', '=', f.location_id);
  const { items, meta } = await readPage(q, 'inventory_levels', page, f.updated_after);
  return { items: items.map(presentInventoryRow), meta };
}

/** The merchant's locations among these ids. */
export async function knownLocations(db: Database, scope: Scope, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db.selectFrom('locations').select('id').where(ofMerchant('locations', scope)).where('id', 'in', [...new Set(ids)]).execute();
  return new Set(rows.map((r) => r.id));
}

/** The merchant's variants among these ids, with their SKU. */
export async function variantsByIds(db: Database, scope: Scope, ids: string[]) {
  if (ids.length === 0) return [];
  return db.selectFrom('variants').select(['id', 'sku']).where(ofMerchant('variants', scope)).where('id', 'in', ids).execute();
}

/** The merchant's variants carrying these SKUs (native and connected: a SKU may be ambiguous). */
export async function variantsBySkus(db: Database, scope: Scope, skus: string[]) {
  if (skus.length === 0) return [];
  return db.selectFrom('variants').select(['id', 'sku']).where(ofMerchant('variants', scope)).where('sku', 'in', skus).execute();
}
