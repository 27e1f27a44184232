// Every statement on social videos: the columns shown and those a write locks, for kindQueries
// (catalog/queries.ts); their links: catalog/links.ts.
import { kindQueries } from '../catalog/queries.ts';

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

export const {
  select: selectVideo,
  selectPage: selectVideoPage,
  insert: insertVideo,
  update: updateVideoRow,
  lock: lockVideo,
} = kindQueries({
  table: 'social_videos',
  shown: (db) => db.selectFrom('social_videos').select(columns),
  locked: ['source', 'video_url', 'video_asset_id'],
});
export type VideoRow = Awaited<ReturnType<typeof selectVideo>>[number];
