// Every statement on the reference data (locations, vendors, tags, media assets); each takes the
// handle, then the scope.
import { sql, type Insertable } from 'kysely';
import type { Database } from '../../db/database.ts';
import type { MediaAssetsTable } from '../../db/schema.ts';
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

/**
 * Sets an asset's url, kind and alt when any differs (then its updated_at moves too); resolves with
 * whether it changed: what shows it (products, collections, videos) changes only then.
 */
export async function updateMediaAssetIfChanged(
  db: Database,
  scope: Scope,
  id: string,
  values: { url: string; kind: 'image' | 'video'; alt: string | null },
): Promise<boolean> {
  const { rows } = await sql`
    update media_assets set url = ${values.url}, kind = ${values.kind}, alt = ${values.alt}, updated_at = clock_timestamp()
     where ${ofMerchant('media_assets', scope)} and id = ${id}
       and (url, kind, alt) is distinct from (${values.url}::text, ${values.kind}::text, ${values.alt}::text)
    returning id`.execute(db);
  return rows.length > 0;
}

/** The merchant's products, collections and social videos whose answer shows one of `assetIds`. */
export async function selectShowingAssets(db: Database, scope: Scope, assetIds: string[]) {
  const { rows } = await sql<{ kind: 'products' | 'collections' | 'social_videos'; id: string }>`
    select 'products' as kind, p.id from products p
     where ${ofMerchant('p', scope)}
       and (p.primary_image_asset_id = any(${assetIds}::uuid[])
         or exists (select 1 from product_gallery g where g.product_id = p.id and g.asset_id = any(${assetIds}::uuid[]))
         or exists (select 1 from variants v where v.product_id = p.id and v.media_asset_id = any(${assetIds}::uuid[])))
    union all
    select 'collections', c.id from collections c where ${ofMerchant('c', scope)} and c.primary_image_asset_id = any(${assetIds}::uuid[])
    union all
    select 'social_videos', v.id from social_videos v
     where ${ofMerchant('v', scope)} and (v.video_asset_id = any(${assetIds}::uuid[]) or v.thumbnail_asset_id = any(${assetIds}::uuid[]))`.execute(db);
  return rows;
}

export function selectMediaAssetPage(db: Database, scope: Scope, page: PageRequest, updatedAfter?: string) {
  return readPage(db.selectFrom('media_assets').select(assetColumns).where(ofMerchant('media_assets', scope)), 'media_assets', page, updatedAfter);
}

export function selectMediaAsset(db: Database, scope: Scope, id: string) {
  return db.selectFrom('media_assets').select(assetColumns).where(ofMerchant('media_assets', scope)).where('media_assets.id', '=', id).executeTakeFirst();
}
