// Products as the API shows them: variants, media, tags and stock (only at the locations the scope
// may see), in a constant number of statements whatever the number of products.
import type { Static } from 'typebox';
import type { Database } from '../../db/database.ts';
import type { Scope } from '../../db/scope.ts';
import { iso, money, moneyOrNull } from '../../http/serialize.ts';
import { listLinks } from '../catalog/links.ts';
import type { Product as ProductSchema } from '../catalog/schemas.ts';
import { selectAssets, selectLevels, selectProducts, selectVariantsOf, type ProductRow } from './queries.ts';

export type Product = Static<typeof ProductSchema>;

export async function presentProducts(db: Database, scope: Scope, rows: ProductRow[]): Promise<Product[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id);
  const [variants, galleryBy, tagsBy] = await Promise.all([
    selectVariantsOf(db, scope, ids),
    listLinks(db, scope, 'productGallery', ids),
    listLinks(db, scope, 'productTags', ids),
  ]);
  const assetIds = [...new Set([...rows.map((r) => r.primary_image_asset_id).filter((x): x is string => !!x), ...[...galleryBy.values()].flat()])];
  const variantIds = variants.map((v) => v.id);
  const [assets, levels] = await Promise.all([
    assetIds.length ? selectAssets(db, scope, assetIds) : Promise.resolve([]),
    variantIds.length ? selectLevels(db, scope, variantIds) : Promise.resolve([]),
  ]);
  const assetById = new Map(assets.map((a) => [a.id, a]));
  const variantsBy = Map.groupBy(variants, (v) => v.product_id);
  const levelsBy = Map.groupBy(levels, (l) => l.variant_id);

  return rows.map((p) => {
    const galleryIds = galleryBy.get(p.id) ?? [];
    const mediaIds = [p.primary_image_asset_id, ...galleryIds].filter((x): x is string => !!x);
    return {
      id: p.id,
      source: p.source,
      source_name: p.source_name,
      external_id: p.external_id,
      title: p.title,
      description: p.description,
      handle: p.handle,
      status: p.status,
      review_status: p.review_status,
      pending_title: p.pending_title,
      pending_description: p.pending_description,
      vendor_id: p.vendor_id,
      primary_image_asset_id: p.primary_image_asset_id,
      gallery_asset_ids: galleryIds,
      tag_ids: tagsBy.get(p.id) ?? [],
      media: mediaIds.map((id, position) => ({ id, url: assetById.get(id)?.url ?? null, kind: assetById.get(id)?.kind ?? 'image', position })),
      variants: (variantsBy.get(p.id) ?? []).map((v) => ({
        id: v.id,
        external_id: v.external_id,
        sku: v.sku,
        option1: v.option1,
        option2: v.option2,
        option3: v.option3,
        price: money(v.price),
        compare_at_price: moneyOrNull(v.compare_at_price),
        barcode: v.barcode,
        inventory_policy: v.inventory_policy,
        media_asset_id: v.media_asset_id,
        shipping_profile: v.shipping_profile,
        requires_shipping: v.requires_shipping,
        weight: moneyOrNull(v.weight),
        weight_unit: v.weight_unit,
        inventory: (levelsBy.get(v.id) ?? []).map((l) => ({
          fulfillment_location_id: l.location_id,
          on_hand: l.on_hand,
          committed: l.committed,
          available: l.on_hand - l.committed,
        })),
      })),
      created_at: iso(p.created_at),
      updated_at: iso(p.updated_at),
    };
  });
}

/** Products in the order of `ids`; unknown ids and other merchants' are left out. */
export async function loadProducts(db: Database, scope: Scope, ids: string[]): Promise<Product[]> {
  if (ids.length === 0) return [];
  const rows = await selectProducts(db, scope, ids);
  const order = new Map(ids.map((id, i) => [id, i]));
  rows.sort((a, b) => order.get(a.id)! - order.get(b.id)!);
  return presentProducts(db, scope, rows);
}
