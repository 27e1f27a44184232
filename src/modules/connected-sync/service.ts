// Connected sync (operator): upserts read-only records from an external source by
// (source_name, external_id), media assets first, then products, collections and videos, each
// pointing at the others by external id. An unknown reference fails the whole sync, every
// problem named by its pointer; nothing is written then (one transaction).
import { inTransaction, type Database } from '../../db/database.ts';
import type { Scope } from '../../db/scope.ts';
import type { Ctx } from '../../http/context.ts';
import { invalidFields, type FieldError } from '../../http/errors.ts';
import { checkRefs, refList, refOne } from '../catalog/common.ts';
import { insertWithHandle } from '../catalog/handles.ts';
import { replaceLinks } from '../catalog/links.ts';
import { selectConnectedIds, type ConnectedTable } from '../catalog/queries.ts';
import { emitCollection, replaceCollectionLinks } from '../collections/service.ts';
import { insertCollection, updateCollectionRow } from '../collections/queries.ts';
import { emitProduct } from '../products/service.ts';
import { insertProduct, updateProductRow } from '../products/queries.ts';
import { replaceVariants } from '../products/variants.ts';
import { insertMediaAsset, updateMediaAsset } from '../reference/queries.ts';
import { emitVideo, replaceVideoLinks } from '../social-videos/service.ts';
import { insertVideo, updateVideoRow } from '../social-videos/queries.ts';
import type { SyncInput } from './schemas.ts';

export type { SyncInput };

interface Outcome {
  created: number;
  updated: number;
  ids: Record<string, string>;
}
const outcome = (): Outcome => ({ created: 0, updated: 0, ids: {} });
const present = (ids: (string | null)[]) => ids.filter((x): x is string => !!x);

/** External ids of this source's records → ids; each unknown one becomes a problem at its pointer. */
class ExternalRefs {
  readonly errors: FieldError[] = [];
  private readonly known = new Map<ConnectedTable, Map<string, string>>();
  private readonly trx: Database;
  private readonly scope: Scope;
  private readonly source: string;
  constructor(trx: Database, scope: Scope, source: string) {
    this.trx = trx;
    this.scope = scope;
    this.source = source;
  }

  async load(table: ConnectedTable, externalIds: (string | null | undefined)[]): Promise<void> {
    this.known.set(table, await selectConnectedIds(this.trx, this.scope, table, this.source, present(externalIds.map((x) => x ?? null))));
  }

  resolve(table: ConnectedTable, what: string, externalId: string | null | undefined, path: string): string | null {
    if (!externalId) return null;
    const id = this.known.get(table)?.get(externalId);
    if (!id) this.errors.push({ path, message: `no ${what} with external_id "${externalId}" from ${this.source}`, code: 'unknown_id' });
    return id ?? null;
  }
}

/** Update the record known by `externalId`, or insert it; counted in `out`. */
async function upsert(out: Outcome, existing: Map<string, string>, externalId: string, update: (id: string) => Promise<void>, insert: () => Promise<string>) {
  let id = existing.get(externalId);
  const created = !id;
  if (id) {
    await update(id);
    out.updated++;
  } else {
    id = await insert();
    existing.set(externalId, id);
    out.created++;
  }
  out.ids[externalId] = id;
  return { id, created };
}

type Sync<K extends 'media_assets' | 'products' | 'collections' | 'social_videos'> = NonNullable<SyncInput[K]>;
const connected = (source: string, externalId: string) => ({ source: 'connected' as const, source_name: source, external_id: externalId });

async function syncAssets(trx: Database, scope: Scope, source: string, assets: Sync<'media_assets'>, out: Outcome) {
  const existing = await selectConnectedIds(
    trx,
    scope,
    'media_assets',
    source,
    assets.map((a) => a.external_id),
  );
  for (const a of assets) {
    const values = { url: a.url, kind: a.kind, alt: a.alt ?? null };
    await upsert(
      out,
      existing,
      a.external_id,
      (id) => updateMediaAsset(trx, scope, id, values),
      async () => (await insertMediaAsset(trx, scope, { ...connected(source, a.external_id), ...values })).id,
    );
  }
}

async function syncProducts(trx: Database, scope: Scope, source: string, products: Sync<'products'>, refs: ExternalRefs, out: Outcome) {
  const existing = await selectConnectedIds(
    trx,
    scope,
    'products',
    source,
    products.map((p) => p.external_id),
  );
  for (const [i, p] of products.entries()) {
    const media = (p.media_external_ids ?? []).map((e, j) => refs.resolve('media_assets', 'media asset', e, `/products/${i}/media_external_ids/${j}`));
    const variantAssets = (p.variants ?? []).map((v, j) =>
      refs.resolve('media_assets', 'media asset', v.media_external_id, `/products/${i}/variants/${j}/media_external_id`),
    );
    if (refs.errors.length) continue;
    const values = {
      title: p.title,
      description: p.description ?? null,
      status: p.status ?? ('active' as const),
      vendor_id: p.vendor_id ?? null,
      primary_image_asset_id: media[0] ?? null,
    };
    const { id, created } = await upsert(
      out,
      existing,
      p.external_id,
      (id) => updateProductRow(trx, scope, id, values),
      () =>
        insertWithHandle(trx, scope, 'products', p.handle ?? p.title, (handle) =>
          insertProduct(trx, scope, { ...connected(source, p.external_id), handle, pending_title: null, pending_description: null, ...values }),
        ),
    );
    await replaceLinks(trx, scope, 'productGallery', id, present(media.slice(1)));
    await replaceLinks(trx, scope, 'productTags', id, p.tag_ids ?? []);
    // Variants are matched by their own external_id.
    const variants = (p.variants ?? []).map(({ media_external_id: _m, ...v }, j) => ({ ...v, media_asset_id: variantAssets[j] }));
    await replaceVariants(trx, scope, id, 'connected', variants, 'external_id');
    await emitProduct(trx, scope, id, created ? 'product.created' : 'product.updated');
  }
}

async function syncCollections(trx: Database, scope: Scope, source: string, collections: Sync<'collections'>, refs: ExternalRefs, out: Outcome) {
  const existing = await selectConnectedIds(
    trx,
    scope,
    'collections',
    source,
    collections.map((c) => c.external_id),
  );
  for (const [i, c] of collections.entries()) {
    const productIds = (c.product_external_ids ?? []).map((e, j) => refs.resolve('products', 'product', e, `/collections/${i}/product_external_ids/${j}`));
    const image = refs.resolve('media_assets', 'media asset', c.image_external_id, `/collections/${i}/image_external_id`);
    if (refs.errors.length) continue;
    const values = {
      title: c.title,
      description: c.description ?? null,
      kind: c.kind ?? ('manual' as const),
      rules: c.rules === undefined ? null : JSON.stringify(c.rules),
      primary_image_asset_id: image,
    };
    const { id, created } = await upsert(
      out,
      existing,
      c.external_id,
      (id) => updateCollectionRow(trx, scope, id, values),
      () =>
        insertWithHandle(trx, scope, 'collections', c.title, (handle) =>
          insertCollection(trx, scope, { ...connected(source, c.external_id), handle, pending_title: null, pending_description: null, ...values }),
        ),
    );
    await replaceCollectionLinks(trx, scope, id, present(productIds), c.tag_ids ?? []);
    await emitCollection(trx, scope, id, created ? 'collection.created' : 'collection.updated');
  }
}

async function syncVideos(trx: Database, scope: Scope, source: string, videos: Sync<'social_videos'>, refs: ExternalRefs, out: Outcome) {
  const existing = await selectConnectedIds(
    trx,
    scope,
    'social_videos',
    source,
    videos.map((v) => v.external_id),
  );
  for (const [i, v] of videos.entries()) {
    const productIds = (v.product_external_ids ?? []).map((e, j) => refs.resolve('products', 'product', e, `/social_videos/${i}/product_external_ids/${j}`));
    const collectionIds = (v.collection_external_ids ?? []).map((e, j) =>
      refs.resolve('collections', 'collection', e, `/social_videos/${i}/collection_external_ids/${j}`),
    );
    const video = refs.resolve('media_assets', 'media asset', v.video_external_id, `/social_videos/${i}/video_external_id`);
    const thumb = refs.resolve('media_assets', 'media asset', v.thumbnail_external_id, `/social_videos/${i}/thumbnail_external_id`);
    if (!v.video_url === !video)
      refs.errors.push({ path: `/social_videos/${i}/video_url`, message: 'give exactly one of video_url or video_external_id', code: 'one_of' });
    if (refs.errors.length) continue;
    const values = {
      title: v.title,
      description: v.description ?? null,
      status: v.status ?? ('published' as const),
      video_url: v.video_url ?? null,
      video_asset_id: video,
      thumbnail_asset_id: thumb,
    };
    const { id, created } = await upsert(
      out,
      existing,
      v.external_id,
      (id) => updateVideoRow(trx, scope, id, values),
      () => insertVideo(trx, scope, { ...connected(source, v.external_id), ...values }),
    );
    await replaceVideoLinks(trx, scope, id, present(productIds), present(collectionIds));
    await emitVideo(trx, scope, id, created ? 'social_video.created' : 'social_video.updated');
  }
}

export async function connectedSync(ctx: Ctx, input: SyncInput) {
  const source = input.source_name;
  const products = input.products ?? [];
  const collections = input.collections ?? [];
  const videos = input.social_videos ?? [];
  return inTransaction(ctx.db, async (trx) => {
    const result = { products: outcome(), collections: outcome(), social_videos: outcome(), media_assets: outcome() };
    // References to the merchant's own vendors and tags.
    await checkRefs(trx, ctx, [
      { table: 'vendors', refs: products.flatMap((p, i) => refOne(`/products/${i}/vendor_id`, p.vendor_id)), what: 'vendor' },
      {
        table: 'tags',
        refs: [
          ...products.flatMap((p, i) => refList(`/products/${i}/tag_ids`, p.tag_ids)),
          ...collections.flatMap((c, i) => refList(`/collections/${i}/tag_ids`, c.tag_ids)),
        ],
        what: 'tag',
      },
    ]);
    const refs = new ExternalRefs(trx, ctx, source);
    // Media assets first: products, collections and videos point at them.
    await syncAssets(trx, ctx, source, input.media_assets ?? [], result.media_assets);
    await refs.load('media_assets', [
      ...products.flatMap((p) => [...(p.media_external_ids ?? []), ...(p.variants ?? []).map((v) => v.media_external_id)]),
      ...collections.map((c) => c.image_external_id),
      ...videos.flatMap((v) => [v.video_external_id, v.thumbnail_external_id]),
    ]);
    await syncProducts(trx, ctx, source, products, refs, result.products);
    await refs.load(
      'products',
      [...collections, ...videos].flatMap((r) => r.product_external_ids ?? []),
    );
    await syncCollections(trx, ctx, source, collections, refs, result.collections);
    await refs.load(
      'collections',
      videos.flatMap((v) => v.collection_external_ids ?? []),
    );
    await syncVideos(trx, ctx, source, videos, refs, result.social_videos);
    if (refs.errors.length) throw invalidFields(refs.errors);
    return result;
  });
}
