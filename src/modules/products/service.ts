// Products: native ones are written here; connected ones only by connected-sync. Pending
// title/description wait for review; variants and tags apply at once (contract §6).
import { sql } from 'kysely';
import type { Database } from '../../db/database.ts';
import { inTransaction } from '../../db/database.ts';
import type { Ctx } from '../../http/context.ts';
import { AppError, invalidFields, notFound, type FieldError } from '../../http/errors.ts';
import { finishPage, keysetPage, type PageRequest } from '../../http/paging.ts';
import { iso, money, moneyOrNull } from '../../http/serialize.ts';
import { emitEvent } from '../../events/outbox.ts';
import { checkRefs, moneyProblem, now, refList, refOne, uniqueHandle } from '../catalog/common.ts';

export interface VariantInput {
  id?: string;
  external_id?: string;
  sku?: string | null;
  option1?: string | null;
  option2?: string | null;
  option3?: string | null;
  price?: number;
  compare_at_price?: number | null;
  barcode?: string | null;
  inventory_policy?: 'deny' | 'continue';
  media_asset_id?: string | null;
  shipping_profile?: string | null;
  requires_shipping?: boolean;
  weight?: number | null;
  weight_unit?: 'g' | 'kg' | 'lb' | 'oz';
}

export interface ProductCreate {
  title: string;
  description?: string | null;
  handle?: string;
  vendor_id?: string | null;
  primary_image_asset_id?: string | null;
  gallery_asset_ids?: string[];
  tag_ids?: string[];
  variants?: VariantInput[];
  submit?: boolean;
}

export interface ProductPatch {
  title?: string;
  description?: string | null;
  variants?: VariantInput[];
  tag_ids?: string[];
  submit?: boolean;
}

const productColumns = [
  'id', 'source', 'source_name', 'external_id', 'title', 'description', 'handle', 'status', 'review_status',
  'pending_title', 'pending_description', 'vendor_id', 'primary_image_asset_id', 'created_at', 'updated_at',
] as const;

type ProductRow = {
  id: string; source: 'native' | 'connected'; source_name: string | null; external_id: string | null; title: string;
  description: string | null; handle: string; status: 'draft' | 'active' | 'archived'; review_status: 'not_submitted' | 'in_review' | 'approved' | 'rejected'; pending_title: string | null;
  pending_description: string | null; vendor_id: string | null; primary_image_asset_id: string | null; created_at: Date; updated_at: Date;
};

/**
 * Present product rows with variants, media, tags and inventory in a constant number of queries,
 * whatever the page size. Inventory shows only `locationIds` (null = all).
 */
export async function presentProducts(db: Database, merchantId: string, rows: ProductRow[], locationIds: string[] | null) {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id);
  const [variants, gallery, tags] = await Promise.all([
    db.selectFrom('variants').selectAll().where('merchant_id', '=', merchantId).where('product_id', 'in', ids).orderBy('product_id').orderBy('position').orderBy('created_at').execute(),
    db.selectFrom('product_gallery').select(['product_id', 'asset_id', 'position']).where('merchant_id', '=', merchantId).where('product_id', 'in', ids).orderBy('position').execute(),
    db.selectFrom('product_tags').select(['product_id', 'tag_id']).where('merchant_id', '=', merchantId).where('product_id', 'in', ids).orderBy('position').execute(),
  ]);
  const assetIds = [...new Set([...rows.map((r) => r.primary_image_asset_id).filter((x): x is string => !!x), ...gallery.map((g) => g.asset_id)])];
  const variantIds = variants.map((v) => v.id);
  const [assets, levels] = await Promise.all([
    assetIds.length
      ? db.selectFrom('media_assets').select(['id', 'url', 'kind']).where('merchant_id', '=', merchantId).where('id', 'in', assetIds).execute()
      : Promise.resolve([]),
    variantIds.length && !(locationIds && locationIds.length === 0)
      ? db
          .selectFrom('inventory_levels')
          .select(['variant_id', 'location_id', 'on_hand', 'committed'])
          .where('merchant_id', '=', merchantId)
          .where('variant_id', 'in', variantIds)
          .$if(locationIds !== null, (q) => q.where('location_id', 'in', locationIds!))
          .orderBy('location_id')
          .execute()
      : Promise.resolve([]),
  ]);
  const assetById = new Map(assets.map((a) => [a.id, a]));
  const group = <T, K extends keyof T>(list: T[], key: K) => {
    const m = new Map<unknown, T[]>();
    for (const item of list) m.set(item[key], [...(m.get(item[key]) ?? []), item]);
    return m;
  };
  const variantsBy = group(variants, 'product_id');
  const galleryBy = group(gallery, 'product_id');
  const tagsBy = group(tags, 'product_id');
  const levelsBy = group(levels, 'variant_id');

  return rows.map((p) => {
    const galleryIds = (galleryBy.get(p.id) ?? []).map((g) => g.asset_id);
    const mediaIds = [p.primary_image_asset_id, ...galleryIds].filter((x): x is string => !!x);
    return {
      id: p.id,
      source: p.source,
      source_name: p.source_name,
      external_id: p.external_id,
      title: p.title,
      description: p.description,
      handle: p.handle,
      status: p.status,
      review_status: p.review_status,
      pending_title: p.pending_title,
      pending_description: p.pending_description,
      vendor_id: p.vendor_id,
      primary_image_asset_id: p.primary_image_asset_id,
      gallery_asset_ids: galleryIds,
      tag_ids: (tagsBy.get(p.id) ?? []).map((t) => t.tag_id),
      media: mediaIds.map((id, position) => ({ id, url: assetById.get(id)?.url ?? null, kind: assetById.get(id)?.kind ?? 'image', position })),
      variants: (variantsBy.get(p.id) ?? []).map((v) => ({
        id: v.id,
        external_id: v.external_id,
        sku: v.sku,
        option1: v.option1,
        option2: v.option2,
        option3: v.option3,
        price: money(v.price),
        compare_at_price: moneyOrNull(v.compare_at_price),
        barcode: v.barcode,
        inventory_policy: v.inventory_policy,
        media_asset_id: v.media_asset_id,
        shipping_profile: v.shipping_profile,
        requires_shipping: v.requires_shipping,
        weight: moneyOrNull(v.weight),
        weight_unit: v.weight_unit,
        inventory: (levelsBy.get(v.id) ?? []).map((l) => ({
          fulfillment_location_id: l.location_id,
          on_hand: l.on_hand,
          committed: l.committed,
          available: l.on_hand - l.committed,
        })),
      })),
      created_at: iso(p.created_at),
      updated_at: iso(p.updated_at),
    };
  });
}

export type Product = Awaited<ReturnType<typeof presentProducts>>[number];

export async function loadProducts(db: Database, merchantId: string, ids: string[], locationIds: string[] | null) {
  if (ids.length === 0) return [];
  const rows = await db.selectFrom('products').select(productColumns).where('merchant_id', '=', merchantId).where('id', 'in', ids).execute();
  const order = new Map(ids.map((id, i) => [id, i]));
  rows.sort((a, b) => order.get(a.id)! - order.get(b.id)!);
  return presentProducts(db, merchantId, rows, locationIds);
}

export async function getProduct(ctx: Ctx, id: string): Promise<Product> {
  const [product] = await loadProducts(ctx.db, ctx.merchantId, [id], ctx.locationIds);
  if (!product) throw notFound('product');
  return product;
}

export async function listProducts(ctx: Ctx, page: PageRequest, filters: { updated_after?: string }) {
  const rows = await ctx.db
    .selectFrom('products')
    .select(productColumns)
    .where('merchant_id', '=', ctx.merchantId)
    .$call((q) => keysetPage(q, 'products', page, filters.updated_after))
    .execute();
  const { items, meta } = finishPage(page, rows);
  return { items: await presentProducts(ctx.db, ctx.merchantId, items, ctx.locationIds), meta };
}

function variantProblems(variants: VariantInput[], requirePrice: (v: VariantInput) => boolean): FieldError[] {
  const errors: FieldError[] = [];
  const skus = new Map<string, number>();
  variants.forEach((v, i) => {
    if (requirePrice(v) && v.price === undefined) errors.push({ path: `/variants/${i}/price`, message: 'is required', code: 'required' });
    for (const field of ['price', 'compare_at_price'] as const) {
      const p = moneyProblem(v[field], `/variants/${i}/${field}`);
      if (p) errors.push(p);
    }
    if (v.sku) {
      if (skus.has(v.sku)) errors.push({ path: `/variants/${i}/sku`, message: `repeats the SKU of /variants/${skus.get(v.sku)}`, code: 'duplicate' });
      else skus.set(v.sku, i);
    }
  });
  return errors;
}

/** 422 for SKUs already used by another native variant of the merchant. */
async function checkSkusFree(trx: Database, merchantId: string, variants: VariantInput[], keptIds: string[]) {
  const skus = variants.map((v) => v.sku).filter((s): s is string => !!s);
  if (skus.length === 0) return;
  const taken = await trx
    .selectFrom('variants')
    .select('sku')
    .where('merchant_id', '=', merchantId)
    .where('source', '=', 'native')
    .where('sku', 'in', skus)
    .$if(keptIds.length > 0, (q) => q.where('id', 'not in', keptIds))
    .execute();
  const takenSet = new Set(taken.map((t) => t.sku));
  const errors: FieldError[] = [];
  variants.forEach((v, i) => {
    if (v.sku && takenSet.has(v.sku)) errors.push({ path: `/variants/${i}/sku`, message: `"${v.sku}" is already used by another variant`, code: 'taken' });
  });
  if (errors.length) throw invalidFields(errors);
}

function variantValues(v: VariantInput) {
  const out: Record<string, unknown> = {};
  for (const k of ['sku', 'option1', 'option2', 'option3', 'barcode', 'inventory_policy', 'media_asset_id', 'shipping_profile', 'requires_shipping', 'weight_unit', 'external_id'] as const) {
    if (v[k] !== undefined) out[k] = v[k];
  }
  for (const k of ['price', 'compare_at_price', 'weight'] as const) if (v[k] !== undefined) out[k] = v[k] === null ? null : String(v[k]);
  return out;
}

const skuConflict = (err: unknown) => (err as { code?: string; constraint?: string }).code === '23505';

/** Replace a product's variant set: rows with id update, rows without are created, the rest go. */
export async function replaceVariants(trx: Database, merchantId: string, productId: string, source: 'native' | 'connected', rows: VariantInput[]) {
  const existing = await trx.selectFrom('variants').select('id').where('merchant_id', '=', merchantId).where('product_id', '=', productId).execute();
  const keep = rows.map((r) => r.id).filter((x): x is string => !!x);
  const removed = existing.map((e) => e.id).filter((id) => !keep.includes(id));
  if (removed.length) await trx.deleteFrom('variants').where('merchant_id', '=', merchantId).where('id', 'in', removed).execute();
  // Clear SKUs being changed first, so swapping SKUs between two variants does not trip the unique index.
  const changing = rows.filter((r) => r.id && r.sku !== undefined).map((r) => r.id!);
  if (changing.length) await trx.updateTable('variants').set({ sku: null }).where('id', 'in', changing).execute();
  for (const [position, v] of rows.entries()) {
    if (v.id) {
      await trx.updateTable('variants').set({ ...variantValues(v), position, updated_at: now } as never).where('id', '=', v.id).where('product_id', '=', productId).execute();
    } else {
      await trx
        .insertInto('variants')
        .values({ merchant_id: merchantId, product_id: productId, source, position, price: '0', ...variantValues(v) } as never)
        .execute();
    }
  }
}

async function replaceTags(trx: Database, merchantId: string, productId: string, tagIds: string[]) {
  await trx.deleteFrom('product_tags').where('product_id', '=', productId).execute();
  const unique = [...new Set(tagIds)];
  if (unique.length) await trx.insertInto('product_tags').values(unique.map((tag_id, position) => ({ merchant_id: merchantId, product_id: productId, tag_id, position }))).execute();
}

export async function replaceGallery(trx: Database, merchantId: string, productId: string, assetIds: string[]) {
  await trx.deleteFrom('product_gallery').where('product_id', '=', productId).execute();
  if (assetIds.length) await trx.insertInto('product_gallery').values(assetIds.map((asset_id, position) => ({ merchant_id: merchantId, product_id: productId, asset_id, position }))).execute();
}

export async function emitProduct(trx: Database, merchantId: string, id: string, type: 'product.created' | 'product.updated') {
  const [object] = await loadProducts(trx, merchantId, [id], null);
  await emitEvent(trx, { merchantId, type, locationId: null, object });
}

export async function createProduct(ctx: Ctx, input: ProductCreate): Promise<Product> {
  const variants = input.variants && input.variants.length ? input.variants : [{ option1: 'Default', price: 0 }];
  const errors = variantProblems(variants, () => true);
  if (errors.length) throw invalidFields(errors);
  const id = await inTransaction(ctx.db, async (trx) => {
    await checkRefs(trx, ctx.merchantId, [
      { table: 'vendors', refs: refOne('/vendor_id', input.vendor_id), what: 'vendor' },
      { table: 'media_assets', refs: [...refOne('/primary_image_asset_id', input.primary_image_asset_id), ...refList('/gallery_asset_ids', input.gallery_asset_ids), ...variants.flatMap((v, i) => refOne(`/variants/${i}/media_asset_id`, v.media_asset_id))], what: 'media asset' },
      { table: 'tags', refs: refList('/tag_ids', input.tag_ids), what: 'tag' },
    ]);
    await checkSkusFree(trx, ctx.merchantId, variants, []);
    const product = await insertWithHandle(trx, ctx.merchantId, input.handle ?? input.title, (handle) =>
      trx
        .insertInto('products')
        .values({
          merchant_id: ctx.merchantId,
          title: input.title,
          description: input.description ?? null,
          handle,
          vendor_id: input.vendor_id ?? null,
          primary_image_asset_id: input.primary_image_asset_id ?? null,
          review_status: input.submit ? 'in_review' : 'not_submitted',
          source_name: null,
          external_id: null,
          pending_title: null,
          pending_description: null,
        })
        .returning('id')
        .executeTakeFirstOrThrow(),
    );
    try {
      await replaceVariants(trx, ctx.merchantId, product.id, 'native', variants);
    } catch (err) {
      if (skuConflict(err)) throw new AppError('validation_failed', 'A SKU is already used by another variant.', [{ path: '/variants', message: 'a SKU is already used by another variant', code: 'taken' }]);
      throw err;
    }
    await replaceGallery(trx, ctx.merchantId, product.id, [...new Set(input.gallery_asset_ids ?? [])]);
    await replaceTags(trx, ctx.merchantId, product.id, input.tag_ids ?? []);
    await emitProduct(trx, ctx.merchantId, product.id, 'product.created');
    return product.id;
  });
  return getProduct(ctx, id);
}

/** Insert with the first free handle; a concurrent insert taking it makes us try the next one. */
export async function insertWithHandle<T>(trx: Database, merchantId: string, wanted: string, insert: (handle: string) => Promise<T>, table: 'products' | 'collections' = 'products'): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    const handle = await uniqueHandle(trx, table, merchantId, wanted);
    await sql`savepoint handle_insert`.execute(trx);
    try {
      const out = await insert(handle);
      await sql`release savepoint handle_insert`.execute(trx);
      return out;
    } catch (err) {
      await sql`rollback to savepoint handle_insert`.execute(trx);
      const e = err as { code?: string; constraint?: string };
      if (e.code !== '23505' || !String(e.constraint ?? '').endsWith('_handle') || attempt > 5) throw err;
    }
  }
}

export async function updateProduct(ctx: Ctx, id: string, patch: ProductPatch): Promise<Product> {
  await inTransaction(ctx.db, async (trx) => {
    const product = await trx.selectFrom('products').select(['id', 'source']).where('merchant_id', '=', ctx.merchantId).where('id', '=', id).forUpdate().executeTakeFirst();
    if (!product) throw notFound('product');
    if (product.source !== 'native') throw new AppError('read_only_record', 'This product comes from a connected source and is read-only here.');
    const set: Record<string, unknown> = {};
    if (patch.title !== undefined) set.pending_title = patch.title;
    if (patch.description !== undefined) set.pending_description = patch.description;
    if (patch.submit) set.review_status = 'in_review';
    if (patch.variants) {
      if (patch.variants.length === 0) throw invalidFields([{ path: '/variants', message: 'must keep at least one variant', code: 'too_few' }]);
      const errors = variantProblems(patch.variants, (v) => !v.id);
      const own = new Set((await trx.selectFrom('variants').select('id').where('product_id', '=', id).execute()).map((v) => v.id));
      const seen = new Set<string>();
      patch.variants.forEach((v, i) => {
        if (v.id && (!own.has(v.id) || seen.has(v.id))) errors.push({ path: `/variants/${i}/id`, message: seen.has(v.id) ? 'is listed twice' : 'is not a variant of this product', code: 'unknown_id' });
        if (v.id) seen.add(v.id);
      });
      if (errors.length) throw invalidFields(errors);
    }
    await checkRefs(trx, ctx.merchantId, [
      { table: 'tags', refs: refList('/tag_ids', patch.tag_ids), what: 'tag' },
      { table: 'media_assets', refs: (patch.variants ?? []).flatMap((v, i) => refOne(`/variants/${i}/media_asset_id`, v.media_asset_id)), what: 'media asset' },
    ]);
    if (patch.variants) {
      await checkSkusFree(trx, ctx.merchantId, patch.variants, patch.variants.map((v) => v.id).filter((x): x is string => !!x));
      await replaceVariants(trx, ctx.merchantId, id, 'native', patch.variants);
    }
    if (patch.tag_ids) await replaceTags(trx, ctx.merchantId, id, patch.tag_ids);
    await trx.updateTable('products').set({ ...set, updated_at: now }).where('id', '=', id).execute();
    await emitProduct(trx, ctx.merchantId, id, 'product.updated');
  });
  return getProduct(ctx, id);
}

/** Operator review: approve makes pending values live (and a draft active); reject keeps them. */
export async function reviewProduct(ctx: Ctx, id: string, decision: 'approve' | 'reject'): Promise<Product> {
  await inTransaction(ctx.db, async (trx) => {
    const p = await trx.selectFrom('products').select(['review_status', 'status', 'pending_title', 'pending_description', 'title', 'description']).where('merchant_id', '=', ctx.merchantId).where('id', '=', id).forUpdate().executeTakeFirst();
    if (!p) throw notFound('product');
    if (p.review_status !== 'in_review') throw new AppError('invalid_state', `The product is ${p.review_status}, not in_review.`);
    const set =
      decision === 'approve'
        ? {
            title: p.pending_title ?? p.title,
            description: p.pending_description ?? p.description,
            pending_title: null,
            pending_description: null,
            review_status: 'approved' as const,
            status: p.status === 'draft' ? ('active' as const) : (p.status as 'active' | 'archived'),
          }
        : { review_status: 'rejected' as const };
    await trx.updateTable('products').set({ ...set, updated_at: now }).where('id', '=', id).execute();
    await emitProduct(trx, ctx.merchantId, id, 'product.updated');
  });
  return getProduct(ctx, id);
}
