// Collections as the API shows them, with their product and tag lists (two statements for any number of rows).
import type { Static } from 'typebox';
import type { Database } from '../../db/database.ts';
import type { Scope } from '../../db/scope.ts';
import { presentWithLinks } from '../catalog/links.ts';
import type { Collection as CollectionSchema } from '../catalog/schemas.ts';
import { collectionRows, type CollectionRow } from './queries.ts';

export type Collection = Static<typeof CollectionSchema>;

export function presentCollections(db: Database, scope: Scope, rows: CollectionRow[]): Promise<Collection[]> {
  return presentWithLinks(db, scope, rows, { product_ids: 'collectionProducts', tag_ids: 'collectionTags' });
}

export async function loadCollection(db: Database, scope: Scope, id: string): Promise<Collection | undefined> {
  return (await presentCollections(db, scope, await collectionRows.select(db, scope, id)))[0];
}
