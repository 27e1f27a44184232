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

/** What a write reads under the video's lock (a PATCH keeps exactly one video source). */
const locked = ['source', 'video_url', 'video_asset_id'] as const;

export const videoRows = kindQueries({ table: 'social_videos', shown: (db) => db.selectFrom('social_videos').select(columns), locked });
export type VideoRow = Awaited<ReturnType<typeof videoRows.select>>[number];
// The names connected sync writes videos by.
export const { insert: insertVideo, update: updateVideoRow } = videoRows;
