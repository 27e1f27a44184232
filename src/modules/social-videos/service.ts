// Social videos: linked to products and collections; changes apply at once (no review).
import type { Database } from '../../db/database.ts';
import { inTransaction } from '../../db/database.ts';
import type { Ctx } from '../../http/context.ts';
import { AppError, invalidFields, notFound } from '../../http/errors.ts';
import { finishPage, keysetPage, type PageRequest } from '../../http/paging.ts';
import { iso } from '../../http/serialize.ts';
import { emitEvent } from '../../events/outbox.ts';
import { checkRefs, now, refList, refOne } from '../catalog/common.ts';

export interface VideoInput {
  title?: string;
  description?: string | null;
  status?: 'draft' | 'published';
  video_url?: string | null;
  video_asset_id?: string | null;
  thumbnail_asset_id?: string | null;
  product_ids?: string[];
  collection_ids?: string[];
}

const columns = ['id', 'source', 'source_name', 'external_id', 'title', 'description', 'status', 'video_url', 'video_asset_id', 'thumbnail_asset_id', 'created_at', 'updated_at'] as const;

type Row = {
  id: string; source: 'native' | 'connected'; source_name: string | null; external_id: string | null; title: string; description: string | null;
  status: 'draft' | 'published'; video_url: string | null; video_asset_id: string | null; thumbnail_asset_id: string | null; created_at: Date; updated_at: Date;
};

async function present(db: Database, merchantId: string, rows: Row[]) {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id);
  const [products, collections] = await Promise.all([
    db.selectFrom('social_video_products').select(['social_video_id', 'product_id']).where('merchant_id', '=', merchantId).where('social_video_id', 'in', ids).orderBy('position').execute(),
    db.selectFrom('social_video_collections').select(['social_video_id', 'collection_id']).where('merchant_id', '=', merchantId).where('social_video_id', 'in', ids).orderBy('position').execute(),
  ]);
  return rows.map((v) => ({
    id: v.id,
    source: v.source,
    source_name: v.source_name,
    external_id: v.external_id,
    title: v.title,
    description: v.description,
    status: v.status,
    video_url: v.video_url,
    video_asset_id: v.video_asset_id,
    thumbnail_asset_id: v.thumbnail_asset_id,
    product_ids: products.filter((p) => p.social_video_id === v.id).map((p) => p.product_id),
    collection_ids: collections.filter((c) => c.social_video_id === v.id).map((c) => c.collection_id),
    created_at: iso(v.created_at),
    updated_at: iso(v.updated_at),
  }));
}

export type SocialVideo = Awaited<ReturnType<typeof present>>[number];

export async function loadVideo(db: Database, merchantId: string, id: string) {
  const rows = await db.selectFrom('social_videos').select(columns).where('merchant_id', '=', merchantId).where('id', '=', id).execute();
  return (await present(db, merchantId, rows))[0];
}

export async function getVideo(ctx: Ctx, id: string): Promise<SocialVideo> {
  const v = await loadVideo(ctx.db, ctx.merchantId, id);
  if (!v) throw notFound('social video');
  return v;
}

export async function listVideos(ctx: Ctx, page: PageRequest, filters: { updated_after?: string }) {
  const rows = await ctx.db
    .selectFrom('social_videos')
    .select(columns)
    .where('merchant_id', '=', ctx.merchantId)
    .$call((q) => keysetPage(q, 'social_videos', page, filters.updated_after))
    .execute();
  const { items, meta } = finishPage(page, rows);
  return { items: await present(ctx.db, ctx.merchantId, items), meta };
}

export async function replaceVideoLinks(trx: Database, merchantId: string, id: string, productIds?: string[], collectionIds?: string[]) {
  if (productIds) {
    await trx.deleteFrom('social_video_products').where('social_video_id', '=', id).execute();
    const u = [...new Set(productIds)];
    if (u.length) await trx.insertInto('social_video_products').values(u.map((product_id, position) => ({ merchant_id: merchantId, social_video_id: id, product_id, position }))).execute();
  }
  if (collectionIds) {
    await trx.deleteFrom('social_video_collections').where('social_video_id', '=', id).execute();
    const u = [...new Set(collectionIds)];
    if (u.length) await trx.insertInto('social_video_collections').values(u.map((collection_id, position) => ({ merchant_id: merchantId, social_video_id: id, collection_id, position }))).execute();
  }
}

async function checkVideoRefs(trx: Database, merchantId: string, input: VideoInput) {
  await checkRefs(trx, merchantId, [
    { table: 'media_assets', refs: [...refOne('/video_asset_id', input.video_asset_id), ...refOne('/thumbnail_asset_id', input.thumbnail_asset_id)], what: 'media asset' },
    { table: 'products', refs: refList('/product_ids', input.product_ids), what: 'product' },
    { table: 'collections', refs: refList('/collection_ids', input.collection_ids), what: 'collection' },
  ]);
}

const emitVideo = async (trx: Database, merchantId: string, id: string, type: 'social_video.created' | 'social_video.updated') =>
  emitEvent(trx, { merchantId, type, locationId: null, object: await loadVideo(trx, merchantId, id) });

function oneSource(url: string | null | undefined, asset: string | null | undefined) {
  if (!!url === !!asset) {
    throw invalidFields([{ path: '/video_url', message: 'give exactly one of video_url or video_asset_id', code: 'one_of' }]);
  }
}

export async function createVideo(ctx: Ctx, input: VideoInput & { title: string }): Promise<SocialVideo> {
  oneSource(input.video_url, input.video_asset_id);
  const id = await inTransaction(ctx.db, async (trx) => {
    await checkVideoRefs(trx, ctx.merchantId, input);
    const row = await trx
      .insertInto('social_videos')
      .values({
        merchant_id: ctx.merchantId, title: input.title, description: input.description ?? null, status: input.status ?? 'draft',
        video_url: input.video_url ?? null, video_asset_id: input.video_asset_id ?? null, thumbnail_asset_id: input.thumbnail_asset_id ?? null,
        source_name: null, external_id: null,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await replaceVideoLinks(trx, ctx.merchantId, row.id, input.product_ids ?? [], input.collection_ids ?? []);
    await emitVideo(trx, ctx.merchantId, row.id, 'social_video.created');
    return row.id;
  });
  return getVideo(ctx, id);
}

export async function updateVideo(ctx: Ctx, id: string, patch: VideoInput): Promise<SocialVideo> {
  await inTransaction(ctx.db, async (trx) => {
    const v = await trx.selectFrom('social_videos').select(['source', 'video_url', 'video_asset_id']).where('merchant_id', '=', ctx.merchantId).where('id', '=', id).forUpdate().executeTakeFirst();
    if (!v) throw notFound('social video');
    if (v.source !== 'native') throw new AppError('read_only_record', 'This social video comes from a connected source and is read-only here.');
    const url = patch.video_url !== undefined ? patch.video_url : v.video_url;
    const asset = patch.video_asset_id !== undefined ? patch.video_asset_id : v.video_asset_id;
    oneSource(url, asset);
    await checkVideoRefs(trx, ctx.merchantId, patch);
    const set: Record<string, unknown> = { updated_at: now };
    for (const k of ['title', 'description', 'status', 'video_url', 'video_asset_id', 'thumbnail_asset_id'] as const) if (patch[k] !== undefined) set[k] = patch[k];
    await trx.updateTable('social_videos').set(set).where('id', '=', id).execute();
    await replaceVideoLinks(trx, ctx.merchantId, id, patch.product_ids, patch.collection_ids);
    await emitVideo(trx, ctx.merchantId, id, 'social_video.updated');
  });
  return getVideo(ctx, id);
}
