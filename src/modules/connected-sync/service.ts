// Connected sync (operator): upserts read-only records from an external source by
// (source_name, external_id), media assets first, then products, collections and videos, each
// pointing at the others by external id. An unknown reference fails the whole sync, every
// problem named by its pointer; nothing is written then (one transaction).
import { inTransaction, type Database } from '../../db/database.ts';
import type { Scope } from '../../db/scope.ts';
import type { Ctx } from '../../http/context.ts';
import { invalidFields, type FieldError } from '../../http/errors.ts';
import { checkRefs, refList, refOne } from '../catalog/common.ts';
import { updateRow } from '../../db/rows.ts';
import { insertWithHandle } from '../catalog/handles.ts';
import { replaceLinks } from '../catalog/links.ts';
import { lockName, selectConnectedIds, selectOwnIds, type ConnectedTable, type OwnKind } from '../catalog/queries.ts';
import { emitCollection, replaceCollectionLinks } from '../collections/service.ts';
import { insertCollection, updateCollectionRow } from '../collections/queries.ts';
import { emitProduct } from '../products/service.ts';
import { insertProduct, updateProductRow } from '../products/queries.ts';
import { replaceVariants } from '../products/variants.ts';
import { variantAmountProblems } from '../products/validation.ts';
import { insertMediaAsset, selectShowingAssets, updateMediaAssetIfChanged } from '../reference/queries.ts';
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

/**
 * One sync's transaction, merchant and source, and the ids its records' external ids name: each
 * unknown one becomes a problem at its pointer.
 */
class ExternalRefs {
  readonly errors: FieldError[] = [];
  private readonly known = new Map<ConnectedTable, Map<string, string>>();
  readonly trx: Database;
  readonly scope: Scope;
  readonly source: string;
  constructor(trx: Database, scope: Scope, source: string) {
    this.trx = trx;
    this.scope = scope;
    this.source = source;
  }

  async load(table: ConnectedTable, externalIds: (string | null | undefined)[]): Promise<void> {
    this.known.set(table, await selectConnectedIds(this.trx, this.scope, table, this.source, present(externalIds.map((x) => x ?? null))));
  }

  /** The id an external id names, if loaded and known (no problem recorded). */
  peek(table: ConnectedTable, externalId: string | null | undefined): string | undefined {
    return externalId ? this.known.get(table)?.get(externalId) : undefined;
  }

  resolve(table: ConnectedTable, what: string, externalId: string | null | undefined, path: string): string | null {
    if (!externalId) return null;
    const id = this.known.get(table)?.get(externalId);
    if (!id) this.errors.push({ path, message: `no ${what} with external_id "${externalId}" from ${this.source}`, code: 'unknown_id' });
    return id ?? null;
  }
}

/** Where a connected record comes from: stamped on the row it inserts. */
type Origin = { source: 'connected'; source_name: string; external_id: string };

/** How one record is written: over the row this source already has, or as a new row; then what hangs off it. */
interface RecordWrite {
  update: (id: string) => Promise<void>;
  insert: (origin: Origin) => Promise<string>;
  /** Links, variants and the event, once the row is written. */
  afterwards?: (id: string, created: boolean) => Promise<void>;
}

/**
 * Sync the records of one table: each one updates the row the source sent before under its
 * external id, or inserts one, counted in `out`. `write` resolves the record's references first;
 * once any reference is unknown nothing more is written (the sync fails as a whole), and the
 * remaining records only add their problems.
 */
async function syncTable<R extends { external_id: string }>(
  refs: ExternalRefs,
  table: ConnectedTable,
  records: R[],
  out: Outcome,
  write: (record: R, i: number) => RecordWrite,
) {
  const existing = await selectConnectedIds(
    refs.trx,
    refs.scope,
    table,
    refs.source,
    records.map((r) => r.external_id),
  );
  for (const [i, record] of records.entries()) {
    const w = write(record, i);
    if (refs.errors.length) continue;
    let id = existing.get(record.external_id);
    const created = !id;
    if (id) {
      await w.update(id);
      out.updated++;
    } else {
      id = await w.insert({ source: 'connected', source_name: refs.source, external_id: record.external_id });
      existing.set(record.external_id, id);
      out.created++;
    }
    out.ids[record.external_id] = id;
    await w.afterwards?.(id, created);
  }
}

type Sync<K extends 'media_assets' | 'products' | 'collections' | 'social_videos'> = NonNullable<SyncInput[K]>;

/** Syncs the assets; `changed` collects the existing ones whose url, kind or alt this sync changed. */
function syncAssets(refs: ExternalRefs, assets: Sync<'media_assets'>, out: Outcome, changed: string[]) {
  const { trx, scope } = refs;
  return syncTable(refs, 'media_assets', assets, out, (a) => {
    const values = { url: a.url, kind: a.kind, alt: a.alt ?? null };
    return {
      update: async (id) => {
        if (await updateMediaAssetIfChanged(trx, scope, id, values)) changed.push(id);
      },
      insert: async (origin) => (await insertMediaAsset(trx, scope, { ...origin, ...values })).id,
    };
  });
}

function syncProducts(refs: ExternalRefs, products: Sync<'products'>, out: Outcome) {
  const { trx, scope } = refs;
  return syncTable(refs, 'products', products, out, (p, i) => {
    const media = (p.media_external_ids ?? []).map((e, j) => refs.resolve('media_assets', 'media asset', e, `/products/${i}/media_external_ids/${j}`));
    const variantAssets = (p.variants ?? []).map((v, j) =>
      refs.resolve('media_assets', 'media asset', v.media_external_id, `/products/${i}/variants/${j}/media_external_id`),
    );
    const values = {
      title: p.title,
      description: p.description ?? null,
      status: p.status ?? ('active' as const),
      vendor_id: p.vendor_id ?? null,
      primary_image_asset_id: media[0] ?? null,
    };
    return {
      update: (id) => updateProductRow(trx, scope, id, values),
      insert: (origin) =>
        insertWithHandle(trx, scope, 'products', p.handle ?? p.title, (handle) =>
          insertProduct(trx, scope, { ...origin, handle, pending_title: null, pending_description: null, ...values }),
        ),
      afterwards: async (id, created) => {
        await replaceLinks(trx, scope, 'productGallery', id, present(media.slice(1)));
        await replaceLinks(trx, scope, 'productTags', id, p.tag_ids ?? []);
        // Variants are matched by their own external_id. None sent: one default variant, as a native
        // product gets (contract §6: never a product without one); with no external_id, the same
        // default row is matched again by the next sync without variants.
        const sent = (p.variants ?? []).map(({ media_external_id: _m, ...v }, j) => ({ ...v, media_asset_id: variantAssets[j] }));
        const variants = sent.length ? sent : [{ option1: 'Default', price: 0 }];
        await replaceVariants(trx, scope, id, 'connected', variants, 'external_id');
        await emitProduct(trx, scope, id, created ? 'product.created' : 'product.updated');
      },
    };
  });
}

function syncCollections(refs: ExternalRefs, collections: Sync<'collections'>, out: Outcome) {
  const { trx, scope } = refs;
  return syncTable(refs, 'collections', collections, out, (c, i) => {
    const productIds = (c.product_external_ids ?? []).map((e, j) => refs.resolve('products', 'product', e, `/collections/${i}/product_external_ids/${j}`));
    const image = refs.resolve('media_assets', 'media asset', c.image_external_id, `/collections/${i}/image_external_id`);
    const values = {
      title: c.title,
      description: c.description ?? null,
      kind: c.kind ?? ('manual' as const),
      rules: c.rules === undefined ? null : JSON.stringify(c.rules),
      primary_image_asset_id: image,
    };
    return {
      update: (id) => updateCollectionRow(trx, scope, id, values),
      insert: (origin) =>
        insertWithHandle(trx, scope, 'collections', c.title, (handle) =>
          insertCollection(trx, scope, { ...origin, handle, pending_title: null, pending_description: null, ...values }),
        ),
      afterwards: async (id, created) => {
        await replaceCollectionLinks(trx, scope, id, present(productIds), c.tag_ids ?? []);
        await emitCollection(trx, scope, id, created ? 'collection.created' : 'collection.updated');
      },
    };
  });
}

/** `videoAssets`: the referenced assets with their kinds (the video itself must be a video, as natively). */
function syncVideos(refs: ExternalRefs, videos: Sync<'social_videos'>, out: Outcome, videoAssets: Map<string, OwnKind>) {
  const { trx, scope } = refs;
  return syncTable(refs, 'social_videos', videos, out, (v, i) => {
    const productIds = (v.product_external_ids ?? []).map((e, j) => refs.resolve('products', 'product', e, `/social_videos/${i}/product_external_ids/${j}`));
    const collectionIds = (v.collection_external_ids ?? []).map((e, j) =>
      refs.resolve('collections', 'collection', e, `/social_videos/${i}/collection_external_ids/${j}`),
    );
    const video = refs.resolve('media_assets', 'media asset', v.video_external_id, `/social_videos/${i}/video_external_id`);
    if (video && videoAssets.get(video) !== 'video') {
      refs.errors.push({ path: `/social_videos/${i}/video_external_id`, message: `media asset "${v.video_external_id}" is not a video`, code: 'unknown_id' });
    }
    const thumb = refs.resolve('media_assets', 'media asset', v.thumbnail_external_id, `/social_videos/${i}/thumbnail_external_id`);
    if (!v.video_url === !video)
      refs.errors.push({ path: `/social_videos/${i}/video_url`, message: 'give exactly one of video_url or video_external_id', code: 'one_of' });
    const values = {
      title: v.title,
      description: v.description ?? null,
      status: v.status ?? ('published' as const),
      video_url: v.video_url ?? null,
      video_asset_id: video,
      thumbnail_asset_id: thumb,
    };
    return {
      update: (id) => updateVideoRow(trx, scope, id, values),
      insert: (origin) => insertVideo(trx, scope, { ...origin, ...values }),
      afterwards: async (id, created) => {
        await replaceVideoLinks(trx, scope, id, present(productIds), present(collectionIds));
        await emitVideo(trx, scope, id, created ? 'social_video.created' : 'social_video.updated');
      },
    };
  });
}

export async function connectedSync(ctx: Ctx, input: SyncInput) {
  const source = input.source_name;
  const products = input.products ?? [];
  const collections = input.collections ?? [];
  const videos = input.social_videos ?? [];
  return inTransaction(ctx.db, async (trx) => {
    // Syncs from one source take turns: two at once would both find an external id new and both
    // insert it (a unique-key failure, answered 500), where one after the other updates it.
    await lockName(trx, ctx, `connected-sync|${source}`);
    const result = { products: outcome(), collections: outcome(), social_videos: outcome(), media_assets: outcome() };
    // References to the merchant's own vendors and tags, after the external ids sent twice.
    await checkRefs(
      trx,
      ctx,
      [
        { table: 'vendors', refs: products.flatMap((p, i) => refOne(`/products/${i}/vendor_id`, p.vendor_id)), what: 'vendor' },
        {
          table: 'tags',
          refs: [
            ...products.flatMap((p, i) => refList(`/products/${i}/tag_ids`, p.tag_ids)),
            ...collections.flatMap((c, i) => refList(`/collections/${i}/tag_ids`, c.tag_ids)),
          ],
          what: 'tag',
        },
      ],
      [
        ...repeatedExternalIds(input),
        // Amounts as a native variant's: 1.234 was rounded to 1.23 where a native write is refused.
        ...products.flatMap((p, i) => (p.variants ?? []).flatMap((v, j) => variantAmountProblems(v, `/products/${i}/variants/${j}`))),
      ],
    );
    const refs = new ExternalRefs(trx, ctx, source);
    // Media assets first: products, collections and videos point at them.
    const changedAssets: string[] = [];
    await syncAssets(refs, input.media_assets ?? [], result.media_assets, changedAssets);
    await refs.load('media_assets', [
      ...products.flatMap((p) => [...(p.media_external_ids ?? []), ...(p.variants ?? []).map((v) => v.media_external_id)]),
      ...collections.map((c) => c.image_external_id),
      ...videos.flatMap((v) => [v.video_external_id, v.thumbnail_external_id]),
    ]);
    await syncProducts(refs, products, result.products);
    await refs.load(
      'products',
      [...collections, ...videos].flatMap((r) => r.product_external_ids ?? []),
    );
    await syncCollections(refs, collections, result.collections);
    await refs.load(
      'collections',
      videos.flatMap((v) => v.collection_external_ids ?? []),
    );
    const videoIds = present(videos.map((v) => refs.peek('media_assets', v.video_external_id) ?? null));
    const videoAssets = videoIds.length ? await selectOwnIds(trx, ctx, 'media_assets', videoIds) : new Map<string, OwnKind>();
    await syncVideos(refs, videos, result.social_videos, videoAssets);
    if (refs.errors.length) throw invalidFields(refs.errors);
    await showChangedAssets(trx, ctx, changedAssets, result);
    return result;
  });
}

/**
 * Each external_id once per list, and once among a product's variants: a repeat was written twice
 * (the last one winning, with an event for each), and variants repeating one were collapsed by the
 * next identical sync, their stock removed with them.
 */
function repeatedExternalIds(input: SyncInput): FieldError[] {
  const errors: FieldError[] = [];
  const once = (records: { external_id: string }[], base: string) => {
    const first = new Map<string, number>();
    records.forEach((r, i) => {
      const at = first.get(r.external_id);
      if (at === undefined) first.set(r.external_id, i);
      else errors.push({ path: `${base}/${i}/external_id`, message: `repeats the external_id of ${base}/${at}`, code: 'duplicate' });
    });
  };
  once(input.media_assets ?? [], '/media_assets');
  once(input.products ?? [], '/products');
  (input.products ?? []).forEach((p, i) => once(p.variants ?? [], `/products/${i}/variants`));
  once(input.collections ?? [], '/collections');
  once(input.social_videos ?? [], '/social_videos');
  return errors;
}

/**
 * The products, collections and videos (native ones too) that show an asset this sync changed
 * answer differently now: their updated_at moves and their `*.updated` event carries the new
 * asset, so a sync by `updated_after`, the feed or webhooks sees it. Records this sync wrote have
 * had their event already.
 */
async function showChangedAssets(trx: Database, scope: Scope, assetIds: string[], result: Record<'products' | 'collections' | 'social_videos', Outcome>) {
  if (assetIds.length === 0) return;
  const written = new Set([result.products, result.collections, result.social_videos].flatMap((o) => Object.values(o.ids)));
  for (const { kind, id } of await selectShowingAssets(trx, scope, assetIds)) {
    if (written.has(id)) continue;
    await updateRow(trx, scope, kind, id, {});
    if (kind === 'products') await emitProduct(trx, scope, id, 'product.updated');
    else if (kind === 'collections') await emitCollection(trx, scope, id, 'collection.updated');
    else await emitVideo(trx, scope, id, 'social_video.updated');
  }
}
