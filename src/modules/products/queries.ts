// Every statement on products and variants; each takes the handle, then the scope.
import type { Updateable } from 'kysely';
import type { Database } from '../../db/database.ts';
import type { VariantsTable } from '../../db/schema.ts';
import { inIdOrder, now } from '../../db/rows.ts';
import { ofMerchant, type Scope } from '../../db/scope.ts';
import { isoSql, parseJson, type JsonText } from '../../http/serialize.ts';
import { kindQueries } from '../catalog/queries.ts';
import { productJsonFor, type Product } from './presenter.ts';

/**
 * Products as the API shows them, JSON text built by PostgreSQL (presenter.ts) in the one statement
 * that reads them, with the keyset position as ISO text. kindQueries adds the merchant filter.
 */
function selectFullProducts(db: Database, scope: Scope) {
  return db.selectFrom('products').select(['products.id', isoSql('products.updated_at').as('updated_at'), productJsonFor(scope).as('json')]);
}

/** What writes and the review read under the product's lock (a first approval activates a draft). */
const locked = ['id', 'source', 'review_status', 'status', 'pending_title', 'pending_description', 'title', 'description'] as const;

export const productRows = kindQueries({ table: 'products', shown: selectFullProducts, locked });
// The names connected sync writes products by.
export const { insert: insertProduct, update: updateProductRow } = productRows;

export type ProductRow = Awaited<ReturnType<ReturnType<typeof productRows.rows>['execute']>>[number];

/** Products in the order of `ids` as JSON text; unknown ids and other merchants' are left out. One statement. */
export async function loadProductJson(db: Database, scope: Scope, ids: string[]): Promise<JsonText<Product>[]> {
  const rows = await inIdOrder(ids, (unique) => productRows.rows(db, scope).where('products.id', 'in', unique).execute());
  return rows.map((row) => row.json);
}

/** Products in the order of `ids`; unknown ids and other merchants' are left out. One statement. */
export const loadProducts = async (db: Database, scope: Scope, ids: string[]): Promise<Product[]> => (await loadProductJson(db, scope, ids)).map(parseJson);

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
  return db.selectFrom('variants').select(['id', 'external_id', 'sku']).where(ofMerchant('variants', scope)).where('product_id', '=', productId).execute();
}

/** Removes variants, locking them in id order as the stock writes do (no deadlock with one of them). */
export async function deleteVariants(db: Database, scope: Scope, ids: string[]): Promise<void> {
  await db
    .deleteFrom('variants')
    .where('id', 'in', (sub) => sub.selectFrom('variants').select('id').where(ofMerchant('variants', scope)).where('id', 'in', ids).orderBy('id').forUpdate())
    .execute();
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
