// Products: native ones are written here; connected ones only by connected sync. Pending
// title/description wait for review (review.ts); variants and tags apply at once (contract §6).
import type { Ctx } from '../../http/context.ts';
import { invalidFields, type FieldError } from '../../http/errors.ts';
import { refList, refOne, refProblems } from '../catalog/common.ts';
import { insertWithHandle } from '../catalog/handles.ts';
import { catalogKind, lockNative, newReviewable, pendingChanges } from '../catalog/kind.ts';
import { replaceLinks } from '../catalog/links.ts';
import type { Product } from './presenter.ts';
import { loadProducts, productRows, selectVariantKeys, type ProductRow } from './queries.ts';
import type { ProductCreate, ProductPatch } from './schemas.ts';
import { skuTakenMeanwhile, takenSkuProblems, variantIdProblems, variantProblems } from './validation.ts';
import { replaceVariants } from './variants.ts';

export type { Product };

export const {
  get: getProduct,
  list: listProducts,
  emit: emitProduct,
  write: writeProduct,
} = catalogKind<Product, ProductRow, 'product.created' | 'product.updated'>({
  what: 'product',
  load: async (db, scope, id) => (await loadProducts(db, scope, [id]))[0],
  selectPage: productRows.selectPage,
  // The page's products as PostgreSQL built them: answered as they are.
  present: async (_db, _scope, rows) => rows.map((row) => row.json),
});

export async function createProduct(ctx: Ctx, input: ProductCreate): Promise<Product> {
  const variants = input.variants && input.variants.length ? input.variants : [{ option1: 'Default', price: 0 }];
  // One answer names every problem: the variants' own, then unknown references, then taken SKUs.
  const errors = variantProblems(variants, () => true);
  return writeProduct(ctx, 'product.created', async (trx) => {
    errors.push(
      ...(await refProblems(trx, ctx, [
        { table: 'vendors', refs: refOne('/vendor_id', input.vendor_id), what: 'vendor' },
        // The primary image and a variant's image must be images (a video asset was taken); the
        // gallery may hold videos too.
        {
          table: 'media_assets',
          refs: [
            ...refOne('/primary_image_asset_id', input.primary_image_asset_id),
            ...variants.flatMap((v, i) => refOne(`/variants/${i}/media_asset_id`, v.media_asset_id)),
          ],
          what: 'image media asset',
          kind: 'image',
        },
        { table: 'media_assets', refs: refList('/gallery_asset_ids', input.gallery_asset_ids), what: 'media asset' },
        { table: 'tags', refs: refList('/tag_ids', input.tag_ids), what: 'tag' },
      ])),
      ...(await takenSkuProblems(trx, ctx, variants, [])),
    );
    if (errors.length) throw invalidFields(errors);
    const productId = await insertWithHandle(trx, ctx, 'products', input.handle ?? input.title, (handle) =>
      productRows.insert(trx, ctx, {
        title: input.title,
        description: input.description ?? null,
        handle,
        vendor_id: input.vendor_id ?? null,
        primary_image_asset_id: input.primary_image_asset_id ?? null,
        ...newReviewable(input.submit),
      }),
    );
    try {
      await replaceVariants(trx, ctx, productId, 'native', variants);
    } catch (err) {
      throw skuTakenMeanwhile(err) ?? err;
    }
    await replaceLinks(trx, ctx, 'productGallery', productId, [...new Set(input.gallery_asset_ids ?? [])]);
    await replaceLinks(trx, ctx, 'productTags', productId, input.tag_ids ?? []);
    return productId;
  });
}

export async function updateProduct(ctx: Ctx, id: string, patch: ProductPatch): Promise<Product> {
  return writeProduct(ctx, 'product.updated', async (trx) => {
    await lockNative(productRows.lock(trx, ctx, id), 'product');
    // One answer names every problem: the variants' own, then unknown references, then taken SKUs.
    const errors: FieldError[] = [];
    if (patch.variants) {
      if (patch.variants.length === 0) throw invalidFields([{ path: '/variants', message: 'must keep at least one variant', code: 'too_few' }]);
      const own = new Set((await selectVariantKeys(trx, ctx, id)).map((v) => v.id));
      errors.push(...variantProblems(patch.variants, (v) => !v.id), ...variantIdProblems(patch.variants, own));
    }
    errors.push(
      ...(await refProblems(trx, ctx, [
        { table: 'tags', refs: refList('/tag_ids', patch.tag_ids), what: 'tag' },
        {
          table: 'media_assets',
          refs: (patch.variants ?? []).flatMap((v, i) => refOne(`/variants/${i}/media_asset_id`, v.media_asset_id)),
          what: 'image media asset',
          kind: 'image',
        },
      ])),
    );
    if (patch.variants) {
      const kept = patch.variants.map((v) => v.id).filter((x): x is string => !!x);
      errors.push(...(await takenSkuProblems(trx, ctx, patch.variants, kept)));
    }
    if (errors.length) throw invalidFields(errors);
    if (patch.variants) {
      try {
        await replaceVariants(trx, ctx, id, 'native', patch.variants);
      } catch (err) {
        throw skuTakenMeanwhile(err) ?? err;
      }
    }
    if (patch.tag_ids) await replaceLinks(trx, ctx, 'productTags', id, patch.tag_ids);
    await productRows.update(trx, ctx, id, pendingChanges(patch));
    return id;
  });
}
