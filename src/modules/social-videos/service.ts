// Social videos: linked to products and collections; changes apply at once (no review).
import type { Database } from '../../db/database.ts';
import type { Scope } from '../../db/scope.ts';
import type { Ctx } from '../../http/context.ts';
import { checkRefs, refList, refOne } from '../catalog/common.ts';
import { catalogKind, lockNative, NATIVE } from '../catalog/kind.ts';
import { replaceLinkSets } from '../catalog/links.ts';
import { loadVideo, presentVideos, type SocialVideo } from './presenter.ts';
import { videoRows, type VideoRow } from './queries.ts';
import type { VideoCreate, VideoPatch } from './schemas.ts';

export type { SocialVideo };

export const {
  get: getVideo,
  list: listVideos,
  emit: emitVideo,
  write: writeVideo,
} = catalogKind<SocialVideo, VideoRow, 'social_video.created' | 'social_video.updated'>({
  what: 'social video',
  load: loadVideo,
  selectPage: videoRows.selectPage,
  present: presentVideos,
});

/** Replace the product and collection lists given (an omitted list is kept). */
export async function replaceVideoLinks(trx: Database, scope: Scope, id: string, productIds?: string[], collectionIds?: string[]) {
  await replaceLinkSets(trx, scope, id, [
    ['videoProducts', productIds],
    ['videoCollections', collectionIds],
  ]);
}

/** 422 naming every problem: a missing or doubled video source and every unknown reference. */
async function checkVideo(trx: Database, scope: Scope, input: VideoPatch, source: { url: string | null | undefined; asset: string | null | undefined }) {
  await checkRefs(
    trx,
    scope,
    [
      // The video itself must be a video asset (an image was accepted); the thumbnail may be any.
      { table: 'media_assets', refs: refOne('/video_asset_id', input.video_asset_id), what: 'video media asset', kind: 'video' },
      { table: 'media_assets', refs: refOne('/thumbnail_asset_id', input.thumbnail_asset_id), what: 'media asset' },
      { table: 'products', refs: refList('/product_ids', input.product_ids), what: 'product' },
      { table: 'collections', refs: refList('/collection_ids', input.collection_ids), what: 'collection' },
    ],
    // Exactly one of video_url / video_asset_id (the create schema documents it: schemas.ts).
    !!source.url === !!source.asset ? [{ path: '/video_url', message: 'give exactly one of video_url or video_asset_id', code: 'one_of' }] : [],
  );
}

export async function createVideo(ctx: Ctx, input: VideoCreate): Promise<SocialVideo> {
  return writeVideo(ctx, 'social_video.created', async (trx) => {
    await checkVideo(trx, ctx, input, { url: input.video_url, asset: input.video_asset_id });
    const videoId = await videoRows.insert(trx, ctx, {
      title: input.title,
      description: input.description ?? null,
      status: input.status ?? 'draft',
      video_url: input.video_url ?? null,
      video_asset_id: input.video_asset_id ?? null,
      thumbnail_asset_id: input.thumbnail_asset_id ?? null,
      ...NATIVE,
    });
    await replaceVideoLinks(trx, ctx, videoId, input.product_ids ?? [], input.collection_ids ?? []);
    return videoId;
  });
}

export async function updateVideo(ctx: Ctx, id: string, patch: VideoPatch): Promise<SocialVideo> {
  return writeVideo(ctx, 'social_video.updated', async (trx) => {
    const v = await lockNative(videoRows.lock(trx, ctx, id), 'social video');
    await checkVideo(trx, ctx, patch, {
      url: patch.video_url !== undefined ? patch.video_url : v.video_url,
      asset: patch.video_asset_id !== undefined ? patch.video_asset_id : v.video_asset_id,
    });
    const { product_ids: _p, collection_ids: _c, ...set } = patch;
    await videoRows.update(trx, ctx, id, set);
    await replaceVideoLinks(trx, ctx, id, patch.product_ids, patch.collection_ids);
    return id;
  });
}
