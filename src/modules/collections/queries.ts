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

export const {
  select: selectCollection,
  selectPage: selectCollectionPage,
  insert: insertCollection,
  update: updateCollectionRow,
  lock: lockCollection,
} = kindQueries({
  table: 'collections',
  shown: (db) => db.selectFrom('collections').select(columns),
  locked: ['source', 'review_status', 'title', 'description', 'pending_title', 'pending_description'],
});
export type CollectionRow = Awaited<ReturnType<typeof selectCollection>>[number];
