// Products: native ones are written here; connected ones only by connected sync. Pending
// title/description wait for review (review.ts); variants and tags apply at once (contract §6).
import type { Database } from '../../db/database.ts';
import { merchantScope, type Scope } from '../../db/scope.ts';
import type { Ctx } from '../../http/context.ts';
import { invalidFields, notFound } from '../../http/errors.ts';
import type { PageRequest } from '../../http/paging.ts';
import { emitEvent } from '../../events/outbox.ts';
import { checkRefs, refList, refOne } from '../catalog/common.ts';
import { insertWithHandle } from '../catalog/handles.ts';
import { lockNative, pendingChanges, writeAndGet } from '../catalog/kind.ts';
import { replaceLinks } from '../catalog/links.ts';
import { loadProducts, presentProduct, type Product } from './presenter.ts';
import { insertProduct, lockProduct, selectProductPage, selectVariantKeys, updateProductRow } from './queries.ts';
import type { ProductCreate, ProductPatch } from './schemas.ts';
import { checkSkusFree, skuTakenMeanwhile, variantIdProblems, variantProblems } from './validation.ts';
import { replaceVariants } from './variants.ts';

export type { Product };

export async function getProduct(ctx: Ctx, id: string): Promise<Product> {
  const [product] = await loadProducts(ctx.db, ctx, [id]);
  if (!product) throw notFound('product');
  return product;
}

export async function listProducts(ctx: Ctx, page: PageRequest, filters: { updated_after?: string }) {
  const { items, meta } = await selectProductPage(ctx.db, ctx, page, filters.updated_after);
  return { items: items.map(presentProduct), meta };
}

/** product.created / product.updated with the product as every location sees it. */
export async function emitProduct(trx: Database, scope: Scope, id: string, type: 'product.created' | 'product.updated') {
  const [object] = await loadProducts(trx, merchantScope(scope.merchantId), [id]);
  await emitEvent(trx, { merchantId: scope.merchantId, type, locationId: null, object });
}

export async function createProduct(ctx: Ctx, input: ProductCreate): Promise<Product> {
  const variants = input.variants && input.variants.length ? input.variants : [{ option1: 'Default', price: 0 }];
  const errors = variantProblems(variants, () => true);
  if (errors.length) throw invalidFields(errors);
  return writeAndGet(ctx, getProduct, async (trx) => {
    await checkRefs(trx, ctx, [
      { table: 'vendors', refs: refOne('/vendor_id', input.vendor_id), what: 'vendor' },
      {
        table: 'media_assets',
        refs: [
          ...refOne('/primary_image_asset_id', input.primary_image_asset_id),
          ...refList('/gallery_asset_ids', input.gallery_asset_ids),
          ...variants.flatMap((v, i) => refOne(`/variants/${i}/media_asset_id`, v.media_asset_id)),
        ],
        what: 'media asset',
      },
      { table: 'tags', refs: refList('/tag_ids', input.tag_ids), what: 'tag' },
    ]);
    await checkSkusFree(trx, ctx, variants, []);
    const productId = await insertWithHandle(trx, ctx, 'products', input.handle ?? input.title, (handle) =>
      insertProduct(trx, ctx, {
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
      }),
    );
    try {
      await replaceVariants(trx, ctx, productId, 'native', variants);
    } catch (err) {
      throw skuTakenMeanwhile(err) ?? err;
    }
    await replaceLinks(trx, ctx, 'productGallery', productId, [...new Set(input.gallery_asset_ids ?? [])]);
    await replaceLinks(trx, ctx, 'productTags', productId, input.tag_ids ?? []);
    await emitProduct(trx, ctx, productId, 'product.created');
    return productId;
  });
}

export async function updateProduct(ctx: Ctx, id: string, patch: ProductPatch): Promise<Product> {
  return writeAndGet(ctx, getProduct, async (trx) => {
    await lockNative(lockProduct(trx, ctx, id), 'product');
    if (patch.variants) {
      if (patch.variants.length === 0) throw invalidFields([{ path: '/variants', message: 'must keep at least one variant', code: 'too_few' }]);
      const own = new Set((await selectVariantKeys(trx, ctx, id)).map((v) => v.id));
      const errors = [...variantProblems(patch.variants, (v) => !v.id), ...variantIdProblems(patch.variants, own)];
      if (errors.length) throw invalidFields(errors);
    }
    await checkRefs(trx, ctx, [
      { table: 'tags', refs: refList('/tag_ids', patch.tag_ids), what: 'tag' },
      { table: 'media_assets', refs: (patch.variants ?? []).flatMap((v, i) => refOne(`/variants/${i}/media_asset_id`, v.media_asset_id)), what: 'media asset' },
    ]);
    if (patch.variants) {
      await checkSkusFree(
        trx,
        ctx,
        patch.variants,
        patch.variants.map((v) => v.id).filter((x): x is string => !!x),
      );
      await replaceVariants(trx, ctx, id, 'native', patch.variants);
    }
    if (patch.tag_ids) await replaceLinks(trx, ctx, 'productTags', id, patch.tag_ids);
    await updateProductRow(trx, ctx, id, pendingChanges(patch));
    await emitProduct(trx, ctx, id, 'product.updated');
    return id;
  });
}
