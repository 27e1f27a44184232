// Every statement on collections (their links: catalog/links.ts); each takes the handle, then the scope.
import type { Insertable, Updateable } from 'kysely';
import type { Database } from '../../db/database.ts';
import type { CollectionsTable } from '../../db/schema.ts';
import { ofMerchant, type Scope } from '../../db/scope.ts';
import { readPage, type PageRequest } from '../../http/paging.ts';
import { now } from '../catalog/queries.ts';

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

export type NewCollection = Omit<Insertable<CollectionsTable>, 'merchant_id'>;

export async function insertCollection(db: Database, scope: Scope, values: NewCollection): Promise<string> {
  return (
    await db
      .insertInto('collections')
      .values({ ...values, merchant_id: scope.merchantId })
      .returning('id')
      .executeTakeFirstOrThrow()
  ).id;
}

export async function updateCollectionRow(db: Database, scope: Scope, id: string, set: Updateable<CollectionsTable>): Promise<void> {
  await db
    .updateTable('collections')
    .set({ ...set, updated_at: now })
    .where(ofMerchant('collections', scope))
    .where('id', '=', id)
    .execute();
}

/** The collection, locked until the transaction ends (writes and review read it first). */
export function lockCollection(db: Database, scope: Scope, id: string) {
  return db
    .selectFrom('collections')
    .select(['source', 'review_status', 'title', 'description', 'pending_title', 'pending_description'])
    .where(ofMerchant('collections', scope))
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();
}
