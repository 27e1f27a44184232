// Products as the API shows them, built by PostgreSQL as JSON text in the statement that reads
// them (json_build_object, keys in the schema's order, values by the wire rules of
// src/http/serialize.ts): variants with their stock at the locations the scope may see, the media
// the primary image and gallery name, tag ids. Read routes answer the text as it is; writes and
// events parse it.
import { sql, type Expression, type SqlBool } from 'kysely';
import type { Static } from 'typebox';
import { frozen } from '../../db/fragment.ts';
import { atVisibleLocation, sameMerchantAs, type Scope } from '../../db/scope.ts';
import { isoSql, moneySql, type JsonText } from '../../http/serialize.ts';
import type { Product as ProductSchema } from '../catalog/schemas.ts';

export type Product = Static<typeof ProductSchema>;

/** The product (table `products`); `stockVisible` says which inventory_levels rows (`l`) its variants show. */
const productJson = (stockVisible: Expression<SqlBool>) => sql<JsonText<Product>>`json_build_object(
  'id', products.id,
  'source', products.source,
  'source_name', products.source_name,
  'external_id', products.external_id,
  'title', products.title,
  'description', products.description,
  'handle', products.handle,
  'status', products.status,
  'review_status', products.review_status,
  'pending_title', products.pending_title,
  'pending_description', products.pending_description,
  'vendor_id', products.vendor_id,
  'primary_image_asset_id', products.primary_image_asset_id,
  'gallery_asset_ids', (select coalesce(json_agg(g.asset_id order by g.position), '[]')
                          from product_gallery g where ${sameMerchantAs('g', 'products')} and g.product_id = products.id),
  'tag_ids', (select coalesce(json_agg(t.tag_id order by t.position), '[]')
                from product_tags t where ${sameMerchantAs('t', 'products')} and t.product_id = products.id),
  'media', (select coalesce(json_agg(json_build_object('id', m.id, 'url', a.url, 'kind', coalesce(a.kind, 'image'), 'position', m.n - 1) order by m.n), '[]')
              from (select id, row_number() over (order by o) n
                      from (select products.primary_image_asset_id id, -1 o where products.primary_image_asset_id is not null
                            union all
                            select g.asset_id, g.position from product_gallery g
                             where ${sameMerchantAs('g', 'products')} and g.product_id = products.id) ordered) m
              left join media_assets a on a.id = m.id and ${sameMerchantAs('a', 'products')}),
  'variants', (select coalesce(json_agg(json_build_object(
                   'id', v.id, 'external_id', v.external_id, 'sku', v.sku,
                   'option1', v.option1, 'option2', v.option2, 'option3', v.option3,
                   'price', ${moneySql('v.price')}, 'compare_at_price', ${moneySql('v.compare_at_price')},
                   'barcode', v.barcode, 'inventory_policy', v.inventory_policy, 'media_asset_id', v.media_asset_id,
                   'shipping_profile', v.shipping_profile, 'requires_shipping', v.requires_shipping,
                   'weight', ${moneySql('v.weight')}, 'weight_unit', v.weight_unit,
                   'inventory', (select coalesce(json_agg(json_build_object(
                                    'fulfillment_location_id', l.location_id, 'on_hand', l.on_hand, 'committed', l.committed,
                                    'available', l.on_hand - l.committed) order by l.location_id), '[]')
                                   from inventory_levels l
                                  where ${sameMerchantAs('l', 'products')} and l.variant_id = v.id and ${stockVisible}))
                 order by v.position, v.created_at), '[]')
                 from variants v where ${sameMerchantAs('v', 'products')} and v.product_id = products.id),
  'created_at', ${isoSql('products.created_at')},
  'updated_at', ${isoSql('products.updated_at')})::text`;

/** Built once for keys that see every location: the usual case needs no value in this part. */
const EVERY_LOCATION = frozen(productJson(sql<boolean>`true`));

/** The product's JSON for what `scope` may see. */
export const productJsonFor = (scope: Scope) => (scope.locationIds === null ? EVERY_LOCATION : productJson(atVisibleLocation('l.location_id', scope)));
