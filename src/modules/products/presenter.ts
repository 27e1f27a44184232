// Products as the API shows them, from the rows queries.ts builds in one statement (variants, media,
// tags and stock at the locations the scope may see): this file only shapes them.
import type { Static } from 'typebox';
import type { Database } from '../../db/database.ts';
import type { Scope } from '../../db/scope.ts';
import { iso, money, moneyOrNull } from '../../http/serialize.ts';
import type { Product as ProductSchema } from '../catalog/schemas.ts';
import { selectProducts, type ProductRow } from './queries.ts';

export type Product = Static<typeof ProductSchema>;

export function presentProduct(p: ProductRow): Product {
  const galleryIds = p.gallery.map((g) => g.asset_id);
  const assetById = new Map(p.assets.map((a) => [a.id, a]));
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
    tag_ids: p.tags.map((t) => t.tag_id),
    media: mediaIds.map((id, position) => ({ id, url: assetById.get(id)?.url ?? null, kind: assetById.get(id)?.kind ?? 'image', position })),
    variants: p.variants.map((v) => ({
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
      inventory: v.inventory.map((l) => ({
        fulfillment_location_id: l.location_id,
        on_hand: l.on_hand,
        committed: l.committed,
        available: l.on_hand - l.committed,
      })),
    })),
    created_at: iso(p.created_at),
    updated_at: iso(p.updated_at),
  };
}

/** Products in the order of `ids`; unknown ids and other merchants' are left out. One statement. */
export async function loadProducts(db: Database, scope: Scope, ids: string[]): Promise<Product[]> {
  if (ids.length === 0) return [];
  const rows = await selectProducts(db, scope, ids);
  const order = new Map(ids.map((id, i) => [id, i]));
  rows.sort((a, b) => order.get(a.id)! - order.get(b.id)!);
  return rows.map(presentProduct);
}
