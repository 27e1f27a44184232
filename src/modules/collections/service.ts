// Collections: native ones are manual; smart ones arrive only through connected sync. Like
// products, title/description wait for review while product_ids and tag_ids apply at once.
import { inTransaction, type Database } from '../../db/database.ts';
import type { Scope } from '../../db/scope.ts';
import type { Ctx } from '../../http/context.ts';
import { AppError, notFound } from '../../http/errors.ts';
import type { PageRequest } from '../../http/paging.ts';
import { emitEvent } from '../../events/outbox.ts';
import { checkRefs, refList, refOne } from '../catalog/common.ts';
import { insertWithHandle } from '../catalog/handles.ts';
import { replaceLinkSets } from '../catalog/links.ts';
import { loadCollection, presentCollections, type Collection } from './presenter.ts';
import { insertCollection, lockCollection, selectCollectionPage, updateCollectionRow } from './queries.ts';
import type { CollectionCreate, CollectionPatch } from './schemas.ts';

export type { Collection };

export async function getCollection(ctx: Ctx, id: string): Promise<Collection> {
  const c = await loadCollection(ctx.db, ctx, id);
  if (!c) throw notFound('collection');
  return c;
}

export async function listCollections(ctx: Ctx, page: PageRequest, filters: { updated_after?: string }) {
  const { items, meta } = await selectCollectionPage(ctx.db, ctx, page, filters.updated_after);
  return { items: await presentCollections(ctx.db, ctx, items), meta };
}

/** Replace the product and tag lists given (an omitted list is kept). */
export async function replaceCollectionLinks(trx: Database, scope: Scope, id: string, productIds?: string[], tagIds?: string[]) {
  await replaceLinkSets(trx, scope, id, [['collectionProducts', productIds], ['collectionTags', tagIds]]);
}

export async function emitCollection(trx: Database, scope: Scope, id: string, type: 'collection.created' | 'collection.updated') {
  await emitEvent(trx, { merchantId: scope.merchantId, type, locationId: null, object: await loadCollection(trx, scope, id) });
}

export async function createCollection(ctx: Ctx, input: CollectionCreate): Promise<Collection> {
  const id = await inTransaction(ctx.db, async (trx) => {
    await checkRefs(trx, ctx, [
      { table: 'media_assets', refs: refOne('/primary_image_asset_id', input.primary_image_asset_id), what: 'media asset' },
      { table: 'products', refs: refList('/product_ids', input.product_ids), what: 'product' },
      { table: 'tags', refs: refList('/tag_ids', input.tag_ids), what: 'tag' },
    ]);
    const collectionId = await insertWithHandle(trx, ctx, 'collections', input.title, (handle) =>
      insertCollection(trx, ctx, {
        title: input.title, description: input.description ?? null, handle,
        primary_image_asset_id: input.primary_image_asset_id ?? null, review_status: input.submit ? 'in_review' : 'not_submitted',
        source_name: null, external_id: null, pending_title: null, pending_description: null, rules: null,
      }),
    );
    await replaceCollectionLinks(trx, ctx, collectionId, input.product_ids ?? [], input.tag_ids ?? []);
    await emitCollection(trx, ctx, collectionId, 'collection.created');
    return collectionId;
  });
  return getCollection(ctx, id);
}

export async function updateCollection(ctx: Ctx, id: string, patch: CollectionPatch): Promise<Collection> {
  await inTransaction(ctx.db, async (trx) => {
    const c = await lockCollection(trx, ctx, id);
    if (!c) throw notFound('collection');
    if (c.source !== 'native') throw new AppError('read_only_record', 'This collection comes from a connected source and is read-only here.');
    await checkRefs(trx, ctx, [
      { table: 'products', refs: refList('/product_ids', patch.product_ids), what: 'product' },
      { table: 'tags', refs: refList('/tag_ids', patch.tag_ids), what: 'tag' },
    ]);
    await replaceCollectionLinks(trx, ctx, id, patch.product_ids, patch.tag_ids);
    await updateCollectionRow(trx, ctx, id, {
      ...(patch.title !== undefined && { pending_title: patch.title }),
      ...(patch.description !== undefined && { pending_description: patch.description }),
      ...(patch.submit && { review_status: 'in_review' as const }),
    });
    await emitCollection(trx, ctx, id, 'collection.updated');
  });
  return getCollection(ctx, id);
}
