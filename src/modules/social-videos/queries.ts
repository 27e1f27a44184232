// Every statement on social videos (their links: catalog/links.ts); each takes the handle, then the scope.
import type { Updateable } from 'kysely';
import type { Database } from '../../db/database.ts';
import type { SocialVideosTable } from '../../db/schema.ts';
import { insertRow, lockRow, updateRow, type NewRow } from '../../db/rows.ts';
import { ofMerchant, type Scope } from '../../db/scope.ts';
import { readPage, type PageRequest } from '../../http/paging.ts';

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

export const insertVideo = (db: Database, scope: Scope, values: NewRow<'social_videos'>) => insertRow(db, scope, 'social_videos', values);

export const updateVideoRow = (db: Database, scope: Scope, id: string, set: Updateable<SocialVideosTable>) => updateRow(db, scope, 'social_videos', id, set);

/** The video, locked until the transaction ends. */
export const lockVideo = (db: Database, scope: Scope, id: string) => lockRow(db, scope, 'social_videos', id, ['source', 'video_url', 'video_asset_id']);
