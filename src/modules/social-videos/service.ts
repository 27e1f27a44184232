// Social videos: linked to products and collections; changes apply at once (no review).
import { inTransaction, type Database } from '../../db/database.ts';
import type { Scope } from '../../db/scope.ts';
import type { Ctx } from '../../http/context.ts';
import { AppError, invalidFields, notFound } from '../../http/errors.ts';
import type { PageRequest } from '../../http/paging.ts';
import { emitEvent } from '../../events/outbox.ts';
import { checkRefs, refList, refOne } from '../catalog/common.ts';
import { replaceLinkSets } from '../catalog/links.ts';
import { loadVideo, presentVideos, type SocialVideo } from './presenter.ts';
import { insertVideo, lockVideo, selectVideoPage, updateVideoRow } from './queries.ts';
import type { VideoCreate, VideoPatch } from './schemas.ts';

export type { SocialVideo };

export async function getVideo(ctx: Ctx, id: string): Promise<SocialVideo> {
  const v = await loadVideo(ctx.db, ctx, id);
  if (!v) throw notFound('social video');
  return v;
}

export async function listVideos(ctx: Ctx, page: PageRequest, filters: { updated_after?: string }) {
  const { items, meta } = await selectVideoPage(ctx.db, ctx, page, filters.updated_after);
  return { items: await presentVideos(ctx.db, ctx, items), meta };
}

/** Replace the product and collection lists given (an omitted list is kept). */
export async function replaceVideoLinks(trx: Database, scope: Scope, id: string, productIds?: string[], collectionIds?: string[]) {
  await replaceLinkSets(trx, scope, id, [['videoProducts', productIds], ['videoCollections', collectionIds]]);
}

export async function emitVideo(trx: Database, scope: Scope, id: string, type: 'social_video.created' | 'social_video.updated') {
  await emitEvent(trx, { merchantId: scope.merchantId, type, locationId: null, object: await loadVideo(trx, scope, id) });
}

async function checkVideoRefs(trx: Database, scope: Scope, input: VideoPatch) {
  await checkRefs(trx, scope, [
    { table: 'media_assets', refs: [...refOne('/video_asset_id', input.video_asset_id), ...refOne('/thumbnail_asset_id', input.thumbnail_asset_id)], what: 'media asset' },
    { table: 'products', refs: refList('/product_ids', input.product_ids), what: 'product' },
    { table: 'collections', refs: refList('/collection_ids', input.collection_ids), what: 'collection' },
  ]);
}

/** Exactly one of video_url / video_asset_id (the create schema documents it: schemas.ts). */
function oneSource(url: string | null | undefined, asset: string | null | undefined) {
  if (!!url === !!asset) {
    throw invalidFields([{ path: '/video_url', message: 'give exactly one of video_url or video_asset_id', code: 'one_of' }]);
  }
}

export async function createVideo(ctx: Ctx, input: VideoCreate): Promise<SocialVideo> {
  oneSource(input.video_url, input.video_asset_id);
  const id = await inTransaction(ctx.db, async (trx) => {
    await checkVideoRefs(trx, ctx, input);
    const videoId = await insertVideo(trx, ctx, {
      title: input.title, description: input.description ?? null, status: input.status ?? 'draft',
      video_url: input.video_url ?? null, video_asset_id: input.video_asset_id ?? null, thumbnail_asset_id: input.thumbnail_asset_id ?? null,
      source_name: null, external_id: null,
    });
    await replaceVideoLinks(trx, ctx, videoId, input.product_ids ?? [], input.collection_ids ?? []);
    await emitVideo(trx, ctx, videoId, 'social_video.created');
    return videoId;
  });
  return getVideo(ctx, id);
}

export async function updateVideo(ctx: Ctx, id: string, patch: VideoPatch): Promise<SocialVideo> {
  await inTransaction(ctx.db, async (trx) => {
    const v = await lockVideo(trx, ctx, id);
    if (!v) throw notFound('social video');
    if (v.source !== 'native') throw new AppError('read_only_record', 'This social video comes from a connected source and is read-only here.');
    oneSource(patch.video_url !== undefined ? patch.video_url : v.video_url, patch.video_asset_id !== undefined ? patch.video_asset_id : v.video_asset_id);
    await checkVideoRefs(trx, ctx, patch);
    const { product_ids: _p, collection_ids: _c, ...set } = patch;
    await updateVideoRow(trx, ctx, id, set);
    await replaceVideoLinks(trx, ctx, id, patch.product_ids, patch.collection_ids);
    await emitVideo(trx, ctx, id, 'social_video.updated');
  });
  return getVideo(ctx, id);
}
