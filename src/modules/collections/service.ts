// Collections: native ones are manual; smart ones arrive only through connected-sync. Like
// products, title/description wait for review while product_ids and tag_ids apply at once.
import type { Database } from '../../db/database.ts';
import { inTransaction } from '../../db/database.ts';
import type { Ctx } from '../../http/context.ts';
import { AppError, notFound } from '../../http/errors.ts';
import { finishPage, keysetPage, type PageRequest } from '../../http/paging.ts';
import { iso } from '../../http/serialize.ts';
import { emitEvent } from '../../events/outbox.ts';
import { checkRefs, now, refList, refOne } from '../catalog/common.ts';
import { insertWithHandle } from '../products/service.ts';

export interface CollectionCreate {
  title: string;
  description?: string | null;
  primary_image_asset_id?: string | null;
  product_ids?: string[];
  tag_ids?: string[];
  submit?: boolean;
}

export interface CollectionPatch {
  title?: string;
  description?: string | null;
  product_ids?: string[];
  tag_ids?: string[];
  submit?: boolean;
}

const columns = [
  'id', 'source', 'source_name', 'external_id', 'kind', 'title', 'description', 'handle', 'review_status',
  'pending_title', 'pending_description', 'primary_image_asset_id', 'created_at', 'updated_at',
] as const;

type Row = {
  id: string; source: 'native' | 'connected'; source_name: string | null; external_id: string | null; kind: 'manual' | 'smart';
  title: string; description: string | null; handle: string; review_status: 'not_submitted' | 'in_review' | 'approved' | 'rejected';
  pending_title: string | null; pending_description: string | null; primary_image_asset_id: string | null; created_at: Date; updated_at: Date;
};

async function present(db: Database, merchantId: string, rows: Row[]) {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id);
  const [products, tags] = await Promise.all([
    db.selectFrom('collection_products').select(['collection_id', 'product_id']).where('merchant_id', '=', merchantId).where('collection_id', 'in', ids).orderBy('position').execute(),
    db.selectFrom('collection_tags').select(['collection_id', 'tag_id']).where('merchant_id', '=', merchantId).where('collection_id', 'in', ids).orderBy('position').execute(),
  ]);
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
    product_ids: products.filter((p) => p.collection_id === c.id).map((p) => p.product_id),
    tag_ids: tags.filter((t) => t.collection_id === c.id).map((t) => t.tag_id),
    created_at: iso(c.created_at),
    updated_at: iso(c.updated_at),
  }));
}

export type Collection = Awaited<ReturnType<typeof present>>[number];

export async function loadCollection(db: Database, merchantId: string, id: string): Promise<Collection | undefined> {
  const rows = await db.selectFrom('collections').select(columns).where('merchant_id', '=', merchantId).where('id', '=', id).execute();
  return (await present(db, merchantId, rows))[0];
}

export async function getCollection(ctx: Ctx, id: string): Promise<Collection> {
  const c = await loadCollection(ctx.db, ctx.merchantId, id);
  if (!c) throw notFound('collection');
  return c;
}

export async function listCollections(ctx: Ctx, page: PageRequest, filters: { updated_after?: string }) {
  const rows = await ctx.db
    .selectFrom('collections')
    .select(columns)
    .where('merchant_id', '=', ctx.merchantId)
    .$call((q) => keysetPage(q, 'collections', page, filters.updated_after))
    .execute();
  const { items, meta } = finishPage(page, rows);
  return { items: await present(ctx.db, ctx.merchantId, items), meta };
}

export async function replaceCollectionLinks(trx: Database, merchantId: string, id: string, productIds?: string[], tagIds?: string[]) {
  if (productIds) {
    await trx.deleteFrom('collection_products').where('collection_id', '=', id).execute();
    const unique = [...new Set(productIds)];
    if (unique.length) await trx.insertInto('collection_products').values(unique.map((product_id, position) => ({ merchant_id: merchantId, collection_id: id, product_id, position }))).execute();
  }
  if (tagIds) {
    await trx.deleteFrom('collection_tags').where('collection_id', '=', id).execute();
    const unique = [...new Set(tagIds)];
    if (unique.length) await trx.insertInto('collection_tags').values(unique.map((tag_id, position) => ({ merchant_id: merchantId, collection_id: id, tag_id, position }))).execute();
  }
}

export async function emitCollection(trx: Database, merchantId: string, id: string, type: 'collection.created' | 'collection.updated') {
  await emitEvent(trx, { merchantId, type, locationId: null, object: await loadCollection(trx, merchantId, id) });
}

export async function createCollection(ctx: Ctx, input: CollectionCreate): Promise<Collection> {
  const id = await inTransaction(ctx.db, async (trx) => {
    await checkRefs(trx, ctx.merchantId, [
      { table: 'media_assets', refs: refOne('/primary_image_asset_id', input.primary_image_asset_id), what: 'media asset' },
      { table: 'products', refs: refList('/product_ids', input.product_ids), what: 'product' },
      { table: 'tags', refs: refList('/tag_ids', input.tag_ids), what: 'tag' },
    ]);
    const row = await insertWithHandle(
      trx,
      ctx.merchantId,
      input.title,
      (handle) =>
        trx
          .insertInto('collections')
          .values({
            merchant_id: ctx.merchantId, title: input.title, description: input.description ?? null, handle,
            primary_image_asset_id: input.primary_image_asset_id ?? null, review_status: input.submit ? 'in_review' : 'not_submitted',
            source_name: null, external_id: null, pending_title: null, pending_description: null, rules: null,
          })
          .returning('id')
          .executeTakeFirstOrThrow(),
      'collections',
    );
    await replaceCollectionLinks(trx, ctx.merchantId, row.id, input.product_ids ?? [], input.tag_ids ?? []);
    await emitCollection(trx, ctx.merchantId, row.id, 'collection.created');
    return row.id;
  });
  return getCollection(ctx, id);
}

export async function updateCollection(ctx: Ctx, id: string, patch: CollectionPatch): Promise<Collection> {
  await inTransaction(ctx.db, async (trx) => {
    const c = await trx.selectFrom('collections').select(['source']).where('merchant_id', '=', ctx.merchantId).where('id', '=', id).forUpdate().executeTakeFirst();
    if (!c) throw notFound('collection');
    if (c.source !== 'native') throw new AppError('read_only_record', 'This collection comes from a connected source and is read-only here.');
    await checkRefs(trx, ctx.merchantId, [
      { table: 'products', refs: refList('/product_ids', patch.product_ids), what: 'product' },
      { table: 'tags', refs: refList('/tag_ids', patch.tag_ids), what: 'tag' },
    ]);
    const set: Record<string, unknown> = { updated_at: now };
    if (patch.title !== undefined) set.pending_title = patch.title;
    if (patch.description !== undefined) set.pending_description = patch.description;
    if (patch.submit) set.review_status = 'in_review';
    await replaceCollectionLinks(trx, ctx.merchantId, id, patch.product_ids, patch.tag_ids);
    await trx.updateTable('collections').set(set).where('id', '=', id).execute();
    await emitCollection(trx, ctx.merchantId, id, 'collection.updated');
  });
  return getCollection(ctx, id);
}

export async function reviewCollection(ctx: Ctx, id: string, decision: 'approve' | 'reject'): Promise<Collection> {
  await inTransaction(ctx.db, async (trx) => {
    const c = await trx.selectFrom('collections').select(['review_status', 'title', 'description', 'pending_title', 'pending_description']).where('merchant_id', '=', ctx.merchantId).where('id', '=', id).forUpdate().executeTakeFirst();
    if (!c) throw notFound('collection');
    if (c.review_status !== 'in_review') throw new AppError('invalid_state', `The collection is ${c.review_status}, not in_review.`);
    const set =
      decision === 'approve'
        ? { title: c.pending_title ?? c.title, description: c.pending_description ?? c.description, pending_title: null, pending_description: null, review_status: 'approved' as const }
        : { review_status: 'rejected' as const };
    await trx.updateTable('collections').set({ ...set, updated_at: now }).where('id', '=', id).execute();
    await emitCollection(trx, ctx.merchantId, id, 'collection.updated');
  });
  return getCollection(ctx, id);
}
