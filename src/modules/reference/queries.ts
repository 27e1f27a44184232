// Every statement on the reference data (locations, vendors, tags, media assets); each takes the
// handle, then the scope.
import type { Insertable, Updateable } from 'kysely';
import type { Database } from '../../db/database.ts';
import type { MediaAssetsTable } from '../../db/schema.ts';
import { updateRow } from '../../db/rows.ts';
import { atVisibleLocation, merchantRow, ofMerchant, type Scope } from '../../db/scope.ts';
import { readPage, type PageRequest } from '../../http/paging.ts';

export type NamedTable = 'locations' | 'vendors' | 'tags';
const namedColumns = ['id', 'name', 'created_at', 'updated_at'] as const;

export function insertNamed(db: Database, scope: Scope, table: NamedTable, name: string) {
  return db.insertInto(table).values({ merchant_id: scope.merchantId, name }).returning(namedColumns).executeTakeFirstOrThrow();
}

/** A page of locations, vendors or tags; a location-restricted scope sees only its own locations. */
export function selectNamedPage(db: Database, scope: Scope, table: NamedTable, page: PageRequest, updatedAfter?: string) {
  const q = db
    .selectFrom(table)
    .select(namedColumns)
    .where(ofMerchant(table, scope))
    .$if(table === 'locations', (w) => w.where(atVisibleLocation('locations.id', scope)));
  return readPage(q, table, page, updatedAfter);
}

/** One location, vendor or tag; a location outside a restricted scope's locations is none. */
export function selectNamed(db: Database, scope: Scope, table: NamedTable, id: string) {
  return db
    .selectFrom(table)
    .select(namedColumns)
    .where(ofMerchant(table, scope))
    .where(`${table}.id`, '=', id)
    .$if(table === 'locations', (w) => w.where(atVisibleLocation('locations.id', scope)))
    .executeTakeFirst();
}

const assetColumns = ['id', 'url', 'kind', 'alt', 'source', 'source_name', 'external_id', 'created_at', 'updated_at'] as const;

export type NewMediaAsset = Omit<Insertable<MediaAssetsTable>, 'merchant_id'>;

export function insertMediaAsset(db: Database, scope: Scope, values: NewMediaAsset) {
  return db.insertInto('media_assets').values(merchantRow(scope, values)).returning(assetColumns).executeTakeFirstOrThrow();
}

export const updateMediaAsset = (db: Database, scope: Scope, id: string, set: Updateable<MediaAssetsTable>) => updateRow(db, scope, 'media_assets', id, set);

export function selectMediaAssetPage(db: Database, scope: Scope, page: PageRequest, updatedAfter?: string) {
  return readPage(db.selectFrom('media_assets').select(assetColumns).where(ofMerchant('media_assets', scope)), 'media_assets', page, updatedAfter);
}

export function selectMediaAsset(db: Database, scope: Scope, id: string) {
  return db.selectFrom('media_assets').select(assetColumns).where(ofMerchant('media_assets', scope)).where('media_assets.id', '=', id).executeTakeFirst();
}
