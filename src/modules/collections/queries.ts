// Every statement on collections (their links: catalog/links.ts); each takes the handle, then the scope.
import type { Updateable } from 'kysely';
import type { Database } from '../../db/database.ts';
import type { CollectionsTable } from '../../db/schema.ts';
import { insertRow, lockRow, updateRow, type NewRow } from '../../db/rows.ts';
import { ofMerchant, type Scope } from '../../db/scope.ts';
import { readPage, type PageRequest } from '../../http/paging.ts';

const columns = [
  'id',
  'source',
  'source_name',
  'external_id',
  'kind',
  'title',
  'description',
  'handle',
  'review_status',
  'pending_title',
  'pending_description',
  'primary_image_asset_id',
  'created_at',
  'updated_at',
] as const;

export function selectCollection(db: Database, scope: Scope, id: string) {
  return db.selectFrom('collections').select(columns).where(ofMerchant('collections', scope)).where('id', '=', id).execute();
}
export type CollectionRow = Awaited<ReturnType<typeof selectCollection>>[number];

export function selectCollectionPage(db: Database, scope: Scope, page: PageRequest, updatedAfter?: string) {
  return readPage(db.selectFrom('collections').select(columns).where(ofMerchant('collections', scope)), 'collections', page, updatedAfter);
}

export const insertCollection = (db: Database, scope: Scope, values: NewRow<'collections'>) => insertRow(db, scope, 'collections', values);

export const updateCollectionRow = (db: Database, scope: Scope, id: string, set: Updateable<CollectionsTable>) => updateRow(db, scope, 'collections', id, set);

/** The collection, locked until the transaction ends (writes and review read it first). */
export const lockCollection = (db: Database, scope: Scope, id: string) =>
  lockRow(db, scope, 'collections', id, ['source', 'review_status', 'title', 'description', 'pending_title', 'pending_description']);
