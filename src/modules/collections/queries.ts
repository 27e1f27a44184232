// Every statement on collections: the columns shown and those a write locks, for kindQueries
// (catalog/queries.ts); their links: catalog/links.ts.
import { kindQueries } from '../catalog/queries.ts';

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

/** What writes and the review read under the collection's lock. */
const locked = ['source', 'review_status', 'title', 'description', 'pending_title', 'pending_description'] as const;

export const collectionRows = kindQueries({ table: 'collections', shown: (db) => db.selectFrom('collections').select(columns), locked });
export type CollectionRow = Awaited<ReturnType<typeof collectionRows.select>>[number];
// The names connected sync writes collections by.
export const { insert: insertCollection, update: updateCollectionRow } = collectionRows;
