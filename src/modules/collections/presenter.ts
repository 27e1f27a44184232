// Collections as the API shows them, with their product and tag lists (two statements for any number).
import type { Static } from 'typebox';
import type { Database } from '../../db/database.ts';
import type { Scope } from '../../db/scope.ts';
import { iso } from '../../http/serialize.ts';
import { listLinks } from '../catalog/links.ts';
import type { Collection as CollectionSchema } from '../catalog/schemas.ts';
import { selectCollection, type CollectionRow } from './queries.ts';

export type Collection = Static<typeof CollectionSchema>;

export async function presentCollections(db: Database, scope: Scope, rows: CollectionRow[]): Promise<Collection[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id);
  const [productsBy, tagsBy] = await Promise.all([listLinks(db, scope, 'collectionProducts', ids), listLinks(db, scope, 'collectionTags', ids)]);
  return rows.map((c) => ({
    id: c.id,
    source: c.source,
    source_name: c.source_name,
    external_id: c.external_id,
    kind: c.kind,
    title: c.title,
    description: c.description,
    handle: c.handle,
    review_status: c.review_status,
    pending_title: c.pending_title,
    pending_description: c.pending_description,
    primary_image_asset_id: c.primary_image_asset_id,
    product_ids: productsBy.get(c.id) ?? [],
    tag_ids: tagsBy.get(c.id) ?? [],
    created_at: iso(c.created_at),
    updated_at: iso(c.updated_at),
  }));
}

export async function loadCollection(db: Database, scope: Scope, id: string): Promise<Collection | undefined> {
  return (await presentCollections(db, scope, await selectCollection(db, scope, id)))[0];
}
