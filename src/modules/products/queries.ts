// Every statement on products and variants; each takes the handle, then the scope.
import { sql, type Updateable } from 'kysely';
import { jsonArrayFrom } from 'kysely/helpers/postgres';
import type { Database } from '../../db/database.ts';
import type { VariantsTable } from '../../db/schema.ts';
import { now } from '../../db/rows.ts';
import { atVisibleLocation, ofMerchant, type Scope } from '../../db/scope.ts';
import { kindQueries } from '../catalog/queries.ts';

const productColumns = [
  'products.id',
  'products.source',
  'products.source_name',
  'products.external_id',
  'products.title',
  'products.description',
  'products.handle',
  'products.status',
  'products.review_status',
  'products.pending_title',
  'products.pending_description',
  'products.vendor_id',
  'products.primary_image_asset_id',
  'products.created_at',
  'products.updated_at',
] as const;

/**
 * Products with everything the API shows, built by PostgreSQL in the one statement (json_agg in
 * correlated subqueries, evaluated only for the rows the page keeps): gallery and tag ids, the
 * media assets they name, variants with their stock at the locations the scope may see. Money and
 * weights come as their decimal text, as the columns do. kindQueries adds the merchant filter.
 */
function selectFullProducts(db: Database, scope: Scope) {
  return db
    .selectFrom('products')
    .select(productColumns)
    .select((eb) => {
      const linked = (table: 'product_gallery' | 'product_tags') =>
        eb.selectFrom(table).whereRef(`${table}.product_id`, '=', 'products.id').where(ofMerchant(table, scope)).orderBy(`${table}.position`);
      return [
        jsonArrayFrom(linked('product_gallery').select('product_gallery.asset_id')).as('gallery'),
        jsonArrayFrom(linked('product_tags').select('product_tags.tag_id')).as('tags'),
        jsonArrayFrom(
          eb
            .selectFrom('media_assets')
            .select(['media_assets.id', 'media_assets.url', 'media_assets.kind'])
            .where(ofMerchant('media_assets', scope))
            .where((w) =>
              w.or([
                w('media_assets.id', '=', w.ref('products.primary_image_asset_id')),
                w('media_assets.id', 'in', linked('product_gallery').select('product_gallery.asset_id')),
              ]),
            ),
        ).as('assets'),
        jsonArrayFrom(
          eb
            .selectFrom('variants')
            .whereRef('variants.product_id', '=', 'products.id')
            .where(ofMerchant('variants', scope))
            .select([
              'variants.id',
              'variants.external_id',
              'variants.sku',
              'variants.option1',
              'variants.option2',
              'variants.option3',
              'variants.barcode',
              'variants.inventory_policy',
              'variants.media_asset_id',
              'variants.shipping_profile',
              'variants.requires_shipping',
              'variants.weight_unit',
              sql<string>`variants.price::text`.as('price'),
              sql<string | null>`variants.compare_at_price::text`.as('compare_at_price'),
              sql<string | null>`variants.weight::text`.as('weight'),
            ])
            .select((v) =>
              jsonArrayFrom(
                v
                  .selectFrom('inventory_levels')
                  .select(['inventory_levels.location_id', 'inventory_levels.on_hand', 'inventory_levels.committed'])
                  .whereRef('inventory_levels.variant_id', '=', 'variants.id')
                  .where(ofMerchant('inventory_levels', scope))
                  .where(atVisibleLocation('inventory_levels.location_id', scope))
                  .orderBy('inventory_levels.location_id'),
              ).as('inventory'),
            )
            .orderBy('variants.position')
            .orderBy('variants.created_at'),
        ).as('variants'),
      ];
    });
}

/** What writes and the review read under the product's lock (a first approval activates a draft). */
const locked = ['id', 'source', 'review_status', 'status', 'pending_title', 'pending_description', 'title', 'description'] as const;

export const productRows = kindQueries({ table: 'products', shown: selectFullProducts, locked });
// The names connected sync writes products by.
export const { insert: insertProduct, update: updateProductRow } = productRows;

/** Products by id (unknown ids and other merchants' are left out): one statement. */
export function selectProducts(db: Database, scope: Scope, ids: string[]) {
  return productRows.rows(db, scope).where('products.id', 'in', ids).execute();
}
export type ProductRow = Awaited<ReturnType<typeof selectProducts>>[number];

/** Which of `skus` native variants of the merchant already use (other than `exceptIds`). */
export async function selectTakenSkus(db: Database, scope: Scope, skus: string[], exceptIds: string[]): Promise<Set<string | null>> {
  const rows = await db
    .selectFrom('variants')
    .select('sku')
    .where(ofMerchant('variants', scope))
    .where('source', '=', 'native')
    .where('sku', 'in', skus)
    .$if(exceptIds.length > 0, (q) => q.where('id', 'not in', exceptIds))
    .execute();
  return new Set(rows.map((r) => r.sku));
}

export function selectVariantKeys(db: Database, scope: Scope, productId: string) {
  return db.selectFrom('variants').select(['id', 'external_id']).where(ofMerchant('variants', scope)).where('product_id', '=', productId).execute();
}

export async function deleteVariants(db: Database, scope: Scope, ids: string[]): Promise<void> {
  await db.deleteFrom('variants').where(ofMerchant('variants', scope)).where('id', 'in', ids).execute();
}

/** Clear the SKUs of variants about to take new ones, so two variants may swap SKUs. */
export async function clearSkus(db: Database, scope: Scope, ids: string[]): Promise<void> {
  await db.updateTable('variants').set({ sku: null }).where(ofMerchant('variants', scope)).where('id', 'in', ids).execute();
}

export type VariantValues = Omit<Updateable<VariantsTable>, 'id' | 'merchant_id' | 'product_id' | 'source' | 'created_at' | 'updated_at'>;

export async function updateVariant(db: Database, scope: Scope, productId: string, id: string, values: VariantValues): Promise<void> {
  await db
    .updateTable('variants')
    .set({ ...values, updated_at: now })
    .where(ofMerchant('variants', scope))
    .where('product_id', '=', productId)
    .where('id', '=', id)
    .execute();
}

export async function insertVariant(db: Database, scope: Scope, productId: string, source: 'native' | 'connected', values: VariantValues): Promise<void> {
  await db
    .insertInto('variants')
    .values({
      merchant_id: scope.merchantId,
      product_id: productId,
      source,
      price: '0',
      external_id: null,
      sku: null,
      option1: null,
      option2: null,
      option3: null,
      barcode: null,
      media_asset_id: null,
      shipping_profile: null,
      ...values,
    })
    .execute();
}
