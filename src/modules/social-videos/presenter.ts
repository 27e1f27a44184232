// Social videos as the API shows them, with their product and collection lists (two statements for any number).
import type { Static } from 'typebox';
import type { Database } from '../../db/database.ts';
import type { Scope } from '../../db/scope.ts';
import { iso } from '../../http/serialize.ts';
import { listLinks } from '../catalog/links.ts';
import type { SocialVideo as SocialVideoSchema } from '../catalog/schemas.ts';
import { selectVideo, type VideoRow } from './queries.ts';

export type SocialVideo = Static<typeof SocialVideoSchema>;

export async function presentVideos(db: Database, scope: Scope, rows: VideoRow[]): Promise<SocialVideo[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id);
  const [productsBy, collectionsBy] = await Promise.all([listLinks(db, scope, 'videoProducts', ids), listLinks(db, scope, 'videoCollections', ids)]);
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
    product_ids: productsBy.get(v.id) ?? [],
    collection_ids: collectionsBy.get(v.id) ?? [],
    created_at: iso(v.created_at),
    updated_at: iso(v.updated_at),
  }));
}

export async function loadVideo(db: Database, scope: Scope, id: string): Promise<SocialVideo | undefined> {
  return (await presentVideos(db, scope, await selectVideo(db, scope, id)))[0];
}
