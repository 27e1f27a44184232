// Every statement on products and variants; each takes the handle, then the scope.
import type { Insertable, Updateable } from 'kysely';
import type { Database } from '../../db/database.ts';
import type { ProductsTable, VariantsTable } from '../../db/schema.ts';
import { atVisibleLocation, ofMerchant, type Scope } from '../../db/scope.ts';
import { readPage, type PageRequest } from '../../http/paging.ts';
import { now } from '../catalog/queries.ts';

const productColumns = [
  'id', 'source', 'source_name', 'external_id', 'title', 'description', 'handle', 'status', 'review_status',
  'pending_title', 'pending_description', 'vendor_id', 'primary_image_asset_id', 'created_at', 'updated_at',
] as const;

export function selectProducts(db: Database, scope: Scope, ids: string[]) {
  return db.selectFrom('products').select(productColumns).where(ofMerchant('products', scope)).where('id', 'in', ids).execute();
}
export type ProductRow = Awaited<ReturnType<typeof selectProducts>>[number];

export function selectProductPage(db: Database, scope: Scope, page: PageRequest, updatedAfter?: string) {
  return readPage(db.selectFrom('products').select(productColumns).where(ofMerchant('products', scope)), 'products', page, updatedAfter);
}

export function selectVariantsOf(db: Database, scope: Scope, productIds: string[]) {
  return db.selectFrom('variants').selectAll().where(ofMerchant('variants', scope)).where('product_id', 'in', productIds).orderBy('product_id').orderBy('position').orderBy('created_at').execute();
}

export function selectAssets(db: Database, scope: Scope, ids: string[]) {
  return db.selectFrom('media_assets').select(['id', 'url', 'kind']).where(ofMerchant('media_assets', scope)).where('id', 'in', ids).execute();
}

/** Stock of the variants at the locations the scope may see. */
export function selectLevels(db: Database, scope: Scope, variantIds: string[]) {
  return db
    .selectFrom('inventory_levels')
    .select(['variant_id', 'location_id', 'on_hand', 'committed'])
    .where(ofMerchant('inventory_levels', scope))
    .where('variant_id', 'in', variantIds)
    .where(atVisibleLocation('inventory_levels.location_id', scope))
    .orderBy('location_id')
    .execute();
}

export type NewProduct = Omit<Insertable<ProductsTable>, 'merchant_id'>;

export async function insertProduct(db: Database, scope: Scope, values: NewProduct): Promise<string> {
  return (await db.insertInto('products').values({ ...values, merchant_id: scope.merchantId }).returning('id').executeTakeFirstOrThrow()).id;
}

export async function updateProductRow(db: Database, scope: Scope, id: string, set: Updateable<ProductsTable>): Promise<void> {
  await db.updateTable('products').set({ ...set, updated_at: now }).where(ofMerchant('products', scope)).where('id', '=', id).execute();
}

/** The product, locked until the transaction ends (writes and review read it first). */
export function lockProduct(db: Database, scope: Scope, id: string) {
  return db
    .selectFrom('products')
    .select(['id', 'source', 'review_status', 'status', 'pending_title', 'pending_description', 'title', 'description'])
    .where(ofMerchant('products', scope))
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();
}

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
  await db.updateTable('variants').set({ ...values, updated_at: now }).where(ofMerchant('variants', scope)).where('product_id', '=', productId).where('id', '=', id).execute();
}

export async function insertVariant(db: Database, scope: Scope, productId: string, source: 'native' | 'connected', values: VariantValues): Promise<void> {
  await db
    .insertInto('variants')
    .values({
      merchant_id: scope.merchantId, product_id: productId, source, price: '0',
      external_id: null, sku: null, option1: null, option2: null, option3: null, barcode: null, media_asset_id: null, shipping_profile: null, ...values,
    })
    .execute();
}
