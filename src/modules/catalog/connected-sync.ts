// Connected sync (operator): upserts read-only records from an external source by
// (source_name, external_id). References between synced records use external ids.
import type { Database } from '../../db/database.ts';
import { inTransaction } from '../../db/database.ts';
import type { Ctx } from '../../http/context.ts';
import { invalidFields, type FieldError } from '../../http/errors.ts';
import { checkRefs, now, refList, refOne } from './common.ts';
import { emitProduct, insertWithHandle, replaceGallery, type VariantInput } from '../products/service.ts';
import { emitCollection, replaceCollectionLinks } from '../collections/service.ts';
import { replaceVideoLinks } from '../social-videos/service.ts';
import { emitEvent } from '../../events/outbox.ts';
import { loadVideo } from '../social-videos/service.ts';

export interface SyncInput {
  source_name: string;
  media_assets?: { external_id: string; url: string; kind: 'image' | 'video'; alt?: string | null }[];
  products?: {
    external_id: string; title: string; description?: string | null; handle?: string; status?: 'draft' | 'active' | 'archived';
    vendor_id?: string | null; tag_ids?: string[]; media_external_ids?: string[];
    variants?: (Omit<VariantInput, 'id' | 'media_asset_id'> & { external_id: string; media_external_id?: string | null })[];
  }[];
  collections?: {
    external_id: string; title: string; description?: string | null; kind?: 'manual' | 'smart'; rules?: unknown;
    product_external_ids?: string[]; tag_ids?: string[]; image_external_id?: string | null;
  }[];
  social_videos?: {
    external_id: string; title: string; description?: string | null; status?: 'draft' | 'published'; video_url?: string | null;
    video_external_id?: string | null; thumbnail_external_id?: string | null; product_external_ids?: string[]; collection_external_ids?: string[];
  }[];
}

interface Outcome { created: number; updated: number; ids: Record<string, string> }
const outcome = (): Outcome => ({ created: 0, updated: 0, ids: {} });

type Table = 'media_assets' | 'products' | 'collections' | 'social_videos';

async function existingIds(trx: Database, table: Table, merchantId: string, source: string, externalIds: string[]) {
  if (externalIds.length === 0) return new Map<string, string>();
  const rows = await trx
    .selectFrom(table)
    .select(['id', 'external_id'])
    .where('merchant_id', '=', merchantId)
    .where('source', '=', 'connected')
    .where('source_name', '=', source)
    .where('external_id', 'in', externalIds)
    .execute();
  return new Map(rows.map((r) => [r.external_id as string, r.id]));
}

export async function connectedSync(ctx: Ctx, input: SyncInput) {
  const src = input.source_name;
  return inTransaction(ctx.db, async (trx) => {
    const m = ctx.merchantId;
    const result = { products: outcome(), collections: outcome(), social_videos: outcome(), media_assets: outcome() };

    // References to the merchant's own vendors and tags.
    await checkRefs(trx, m, [
      { table: 'vendors', refs: (input.products ?? []).flatMap((p, i) => refOne(`/products/${i}/vendor_id`, p.vendor_id)), what: 'vendor' },
      {
        table: 'tags',
        refs: [...(input.products ?? []).flatMap((p, i) => refList(`/products/${i}/tag_ids`, p.tag_ids)), ...(input.collections ?? []).flatMap((c, i) => refList(`/collections/${i}/tag_ids`, c.tag_ids))],
        what: 'tag',
      },
    ]);

    // Media assets first: products, collections and videos point at them.
    const assets = await existingIds(trx, 'media_assets', m, src, (input.media_assets ?? []).map((a) => a.external_id));
    for (const a of input.media_assets ?? []) {
      const values = { url: a.url, kind: a.kind, alt: a.alt ?? null };
      let id = assets.get(a.external_id);
      if (id) {
        await trx.updateTable('media_assets').set({ ...values, updated_at: now }).where('id', '=', id).execute();
        result.media_assets.updated++;
      } else {
        id = (await trx.insertInto('media_assets').values({ merchant_id: m, source: 'connected', source_name: src, external_id: a.external_id, ...values }).returning('id').executeTakeFirstOrThrow()).id;
        assets.set(a.external_id, id);
        result.media_assets.created++;
      }
      result.media_assets.ids[a.external_id] = id;
    }
    const allAssets = await existingIds(trx, 'media_assets', m, src, [
      ...(input.products ?? []).flatMap((p) => [...(p.media_external_ids ?? []), ...(p.variants ?? []).map((v) => v.media_external_id).filter((x): x is string => !!x)]),
      ...(input.collections ?? []).map((c) => c.image_external_id).filter((x): x is string => !!x),
      ...(input.social_videos ?? []).flatMap((v) => [v.video_external_id, v.thumbnail_external_id]).filter((x): x is string => !!x),
    ]);
    const errors: FieldError[] = [];
    const asset = (ext: string | null | undefined, path: string) => {
      if (!ext) return null;
      const id = allAssets.get(ext);
      if (!id) errors.push({ path, message: `no media asset with external_id "${ext}" from ${src}`, code: 'unknown_id' });
      return id ?? null;
    };

    const products = await existingIds(trx, 'products', m, src, (input.products ?? []).map((p) => p.external_id));
    for (const [i, p] of (input.products ?? []).entries()) {
      const media = (p.media_external_ids ?? []).map((e, j) => asset(e, `/products/${i}/media_external_ids/${j}`));
      const variantAssets = (p.variants ?? []).map((v, j) => asset(v.media_external_id, `/products/${i}/variants/${j}/media_external_id`));
      if (errors.length) continue;
      const values = {
        title: p.title, description: p.description ?? null, status: p.status ?? ('active' as const), vendor_id: p.vendor_id ?? null,
        primary_image_asset_id: media[0] ?? null,
      };
      let id = products.get(p.external_id);
      const created = !id;
      if (id) {
        await trx.updateTable('products').set({ ...values, updated_at: now }).where('id', '=', id).execute();
        result.products.updated++;
      } else {
        id = (
          await insertWithHandle(trx, m, p.handle ?? p.title, (handle) =>
            trx.insertInto('products').values({ merchant_id: m, source: 'connected', source_name: src, external_id: p.external_id, handle, pending_title: null, pending_description: null, ...values }).returning('id').executeTakeFirstOrThrow(),
          )
        ).id;
        result.products.created++;
      }
      products.set(p.external_id, id);
      result.products.ids[p.external_id] = id;
      await replaceGallery(trx, m, id, media.slice(1).filter((x): x is string => !!x));
      await trx.deleteFrom('product_tags').where('product_id', '=', id).execute();
      const tagIds = [...new Set(p.tag_ids ?? [])];
      if (tagIds.length) await trx.insertInto('product_tags').values(tagIds.map((tag_id, position) => ({ merchant_id: m, product_id: id!, tag_id, position }))).execute();
      // Variants are matched by their own external_id.
      const current = await trx.selectFrom('variants').select(['id', 'external_id']).where('product_id', '=', id).execute();
      const byExt = new Map(current.map((v) => [v.external_id, v.id]));
      const keep = new Set<string>();
      for (const [position, v] of (p.variants ?? []).entries()) {
        const { media_external_id: _m, external_id, ...fields } = v;
        const values: Record<string, unknown> = { position, media_asset_id: variantAssets[position] };
        for (const [k, val] of Object.entries(fields)) values[k] = typeof val === 'number' ? String(val) : val;
        const vid = byExt.get(external_id);
        if (vid) {
          keep.add(vid);
          await trx.updateTable('variants').set({ ...values, updated_at: now } as never).where('id', '=', vid).execute();
        } else {
          await trx.insertInto('variants').values({ merchant_id: m, product_id: id, source: 'connected', external_id, price: '0', ...values } as never).execute();
        }
      }
      const gone = current.filter((v) => !keep.has(v.id)).map((v) => v.id);
      if (gone.length) await trx.deleteFrom('variants').where('id', 'in', gone).execute();
      await emitProduct(trx, m, id, created ? 'product.created' : 'product.updated');
    }

    const allProducts = await existingIds(trx, 'products', m, src, [
      ...(input.collections ?? []).flatMap((c) => c.product_external_ids ?? []),
      ...(input.social_videos ?? []).flatMap((v) => v.product_external_ids ?? []),
    ]);
    const productRef = (ext: string, path: string) => {
      const id = allProducts.get(ext);
      if (!id) errors.push({ path, message: `no product with external_id "${ext}" from ${src}`, code: 'unknown_id' });
      return id;
    };

    const collections = await existingIds(trx, 'collections', m, src, (input.collections ?? []).map((c) => c.external_id));
    for (const [i, c] of (input.collections ?? []).entries()) {
      const productIds = (c.product_external_ids ?? []).map((e, j) => productRef(e, `/collections/${i}/product_external_ids/${j}`));
      const image = asset(c.image_external_id, `/collections/${i}/image_external_id`);
      if (errors.length) continue;
      const values = { title: c.title, description: c.description ?? null, kind: c.kind ?? ('manual' as const), rules: c.rules === undefined ? null : JSON.stringify(c.rules), primary_image_asset_id: image };
      let id = collections.get(c.external_id);
      const created = !id;
      if (id) {
        await trx.updateTable('collections').set({ ...values, updated_at: now }).where('id', '=', id).execute();
        result.collections.updated++;
      } else {
        id = (
          await insertWithHandle(trx, m, c.title, (handle) =>
            trx.insertInto('collections').values({ merchant_id: m, source: 'connected', source_name: src, external_id: c.external_id, handle, pending_title: null, pending_description: null, ...values }).returning('id').executeTakeFirstOrThrow(),
          'collections')
        ).id;
        result.collections.created++;
      }
      collections.set(c.external_id, id);
      result.collections.ids[c.external_id] = id;
      await replaceCollectionLinks(trx, m, id, productIds as string[], c.tag_ids ?? []);
      await emitCollection(trx, m, id, created ? 'collection.created' : 'collection.updated');
    }

    const allCollections = await existingIds(trx, 'collections', m, src, (input.social_videos ?? []).flatMap((v) => v.collection_external_ids ?? []));
    const videos = await existingIds(trx, 'social_videos', m, src, (input.social_videos ?? []).map((v) => v.external_id));
    for (const [i, v] of (input.social_videos ?? []).entries()) {
      const productIds = (v.product_external_ids ?? []).map((e, j) => productRef(e, `/social_videos/${i}/product_external_ids/${j}`));
      const collectionIds = (v.collection_external_ids ?? []).map((e, j) => {
        const id = allCollections.get(e);
        if (!id) errors.push({ path: `/social_videos/${i}/collection_external_ids/${j}`, message: `no collection with external_id "${e}" from ${src}`, code: 'unknown_id' });
        return id;
      });
      const video = asset(v.video_external_id, `/social_videos/${i}/video_external_id`);
      const thumb = asset(v.thumbnail_external_id, `/social_videos/${i}/thumbnail_external_id`);
      if (!v.video_url === !video) errors.push({ path: `/social_videos/${i}/video_url`, message: 'give exactly one of video_url or video_external_id', code: 'one_of' });
      if (errors.length) continue;
      const values = { title: v.title, description: v.description ?? null, status: v.status ?? ('published' as const), video_url: v.video_url ?? null, video_asset_id: video, thumbnail_asset_id: thumb };
      let id = videos.get(v.external_id);
      const created = !id;
      if (id) {
        await trx.updateTable('social_videos').set({ ...values, updated_at: now }).where('id', '=', id).execute();
        result.social_videos.updated++;
      } else {
        id = (await trx.insertInto('social_videos').values({ merchant_id: m, source: 'connected', source_name: src, external_id: v.external_id, ...values }).returning('id').executeTakeFirstOrThrow()).id;
        result.social_videos.created++;
      }
      result.social_videos.ids[v.external_id] = id;
      await replaceVideoLinks(trx, m, id, productIds as string[], collectionIds as string[]);
      await emitEvent(trx, { merchantId: m, type: created ? 'social_video.created' : 'social_video.updated', locationId: null, object: await loadVideo(trx, m, id) });
    }

    if (errors.length) throw invalidFields(errors);
    return result;
  });
}
