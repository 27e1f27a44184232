// Collections: native ones are manual; smart ones arrive only through connected sync. Like
// products, title/description wait for review while product_ids and tag_ids apply at once.
import type { Database } from '../../db/database.ts';
import type { Scope } from '../../db/scope.ts';
import type { Ctx } from '../../http/context.ts';
import { checkRefs, refList, refOne } from '../catalog/common.ts';
import { insertWithHandle } from '../catalog/handles.ts';
import { catalogKind, lockNative, newReviewable, pendingChanges } from '../catalog/kind.ts';
import { replaceLinkSets } from '../catalog/links.ts';
import { loadCollection, presentCollections, type Collection } from './presenter.ts';
import { collectionRows, type CollectionRow } from './queries.ts';
import type { CollectionCreate, CollectionPatch } from './schemas.ts';

export type { Collection };

export const {
  get: getCollection,
  list: listCollections,
  emit: emitCollection,
  write: writeCollection,
} = catalogKind<Collection, CollectionRow, 'collection.created' | 'collection.updated'>({
  what: 'collection',
  load: loadCollection,
  selectPage: collectionRows.selectPage,
  present: presentCollections,
});

/** Replace the product and tag lists given (an omitted list is kept). */
export async function replaceCollectionLinks(trx: Database, scope: Scope, id: string, productIds?: string[], tagIds?: string[]) {
  await replaceLinkSets(trx, scope, id, [
    ['collectionProducts', productIds],
    ['collectionTags', tagIds],
  ]);
}

export async function createCollection(ctx: Ctx, input: CollectionCreate): Promise<Collection> {
  return writeCollection(ctx, 'collection.created', async (trx) => {
    await checkRefs(trx, ctx, [
      // An image (a video asset was taken).
      { table: 'media_assets', refs: refOne('/primary_image_asset_id', input.primary_image_asset_id), what: 'image media asset', kind: 'image' },
      { table: 'products', refs: refList('/product_ids', input.product_ids), what: 'product' },
      { table: 'tags', refs: refList('/tag_ids', input.tag_ids), what: 'tag' },
    ]);
    const collectionId = await insertWithHandle(trx, ctx, 'collections', input.title, (handle) =>
      collectionRows.insert(trx, ctx, {
        title: input.title,
        description: input.description ?? null,
        handle,
        primary_image_asset_id: input.primary_image_asset_id ?? null,
        ...newReviewable(input.submit),
        rules: null,
      }),
    );
    await replaceCollectionLinks(trx, ctx, collectionId, input.product_ids ?? [], input.tag_ids ?? []);
    return collectionId;
  });
}

export async function updateCollection(ctx: Ctx, id: string, patch: CollectionPatch): Promise<Collection> {
  return writeCollection(ctx, 'collection.updated', async (trx) => {
    await lockNative(collectionRows.lock(trx, ctx, id), 'collection');
    await checkRefs(trx, ctx, [
      { table: 'products', refs: refList('/product_ids', patch.product_ids), what: 'product' },
      { table: 'tags', refs: refList('/tag_ids', patch.tag_ids), what: 'tag' },
    ]);
    await replaceCollectionLinks(trx, ctx, id, patch.product_ids, patch.tag_ids);
    await collectionRows.update(trx, ctx, id, pendingChanges(patch));
    return id;
  });
}
