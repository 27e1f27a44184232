// Every statement on social videos (their links: catalog/links.ts); each takes the handle, then the scope.
import type { Insertable, Updateable } from 'kysely';
import type { Database } from '../../db/database.ts';
import type { SocialVideosTable } from '../../db/schema.ts';
import { ofMerchant, type Scope } from '../../db/scope.ts';
import { readPage, type PageRequest } from '../../http/paging.ts';
import { now } from '../catalog/queries.ts';

const columns = [
  'id',
  'source',
  'source_name',
  'external_id',
  'title',
  'description',
  'status',
  'video_url',
  'video_asset_id',
  'thumbnail_asset_id',
  'created_at',
  'updated_at',
] as const;

export function selectVideo(db: Database, scope: Scope, id: string) {
  return db.selectFrom('social_videos').select(columns).where(ofMerchant('social_videos', scope)).where('id', '=', id).execute();
}
export type VideoRow = Awaited<ReturnType<typeof selectVideo>>[number];

export function selectVideoPage(db: Database, scope: Scope, page: PageRequest, updatedAfter?: string) {
  return readPage(db.selectFrom('social_videos').select(columns).where(ofMerchant('social_videos', scope)), 'social_videos', page, updatedAfter);
}

export type NewVideo = Omit<Insertable<SocialVideosTable>, 'merchant_id'>;

export async function insertVideo(db: Database, scope: Scope, values: NewVideo): Promise<string> {
  return (
    await db
      .insertInto('social_videos')
      .values({ ...values, merchant_id: scope.merchantId })
      .returning('id')
      .executeTakeFirstOrThrow()
  ).id;
}

export async function updateVideoRow(db: Database, scope: Scope, id: string, set: Updateable<SocialVideosTable>): Promise<void> {
  await db
    .updateTable('social_videos')
    .set({ ...set, updated_at: now })
    .where(ofMerchant('social_videos', scope))
    .where('id', '=', id)
    .execute();
}

/** The video, locked until the transaction ends. */
export function lockVideo(db: Database, scope: Scope, id: string) {
  return db
    .selectFrom('social_videos')
    .select(['source', 'video_url', 'video_asset_id'])
    .where(ofMerchant('social_videos', scope))
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();
}
