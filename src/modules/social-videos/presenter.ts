// Social videos as the API shows them, with their product and collection lists (two statements for any number).
import type { Static } from 'typebox';
import type { Database } from '../../db/database.ts';
import type { Scope } from '../../db/scope.ts';
import { presentWithLinks } from '../catalog/links.ts';
import type { SocialVideo as SocialVideoSchema } from '../catalog/schemas.ts';
import { videoRows, type VideoRow } from './queries.ts';

export type SocialVideo = Static<typeof SocialVideoSchema>;

export function presentVideos(db: Database, scope: Scope, rows: VideoRow[]): Promise<SocialVideo[]> {
  return presentWithLinks(db, scope, rows, { product_ids: 'videoProducts', collection_ids: 'videoCollections' });
}

export async function loadVideo(db: Database, scope: Scope, id: string): Promise<SocialVideo | undefined> {
  return (await presentVideos(db, scope, await videoRows.select(db, scope, id)))[0];
}
