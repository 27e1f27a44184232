// Demo catalog: native products with stock at both demo locations, a collection and a video,
// and connected records from a "shopify" source beside them.
import type { DemoContext } from './context.ts';
import { createProduct } from '../modules/products/service.ts';
import { createCollection } from '../modules/collections/service.ts';
import { createVideo } from '../modules/social-videos/service.ts';
import { connectedSync } from '../modules/connected-sync/service.ts';

export async function seedCatalog(demo: DemoContext): Promise<void> {
  const { ctx, vendors, tags, images, locations } = demo;
  const tee = await createProduct(ctx, {
    title: 'Organic Cotton Tee',
    description: 'Heavyweight organic cotton.',
    vendor_id: vendors[0].id,
    primary_image_asset_id: images[0].id,
    gallery_asset_ids: [images[1].id],
    tag_ids: [tags[0].id, tags[1].id],
    variants: ['S', 'M', 'L'].flatMap((size) =>
      ['Black', 'White'].map((colour) => ({
        sku: `TEE-${colour.slice(0, 3).toUpperCase()}-${size}`,
        option1: size,
        option2: colour,
        price: 24,
        weight: 180,
        weight_unit: 'g' as const,
      })),
    ),
  });
  const hoodie = await createProduct(ctx, {
    title: 'Trail Hoodie',
    vendor_id: vendors[1].id,
    primary_image_asset_id: images[2].id,
    tag_ids: [tags[2].id],
    variants: ['M', 'L'].map((size) => ({ sku: `HOOD-${size}`, option1: size, price: 59.5, compare_at_price: 69 })),
  });
  const mug = await createProduct(ctx, {
    title: 'Camp Mug',
    primary_image_asset_id: images[3].id,
    variants: [{ sku: 'MUG-1', price: 12, inventory_policy: 'continue' }],
  });

  // Opening stock, recorded in the ledger like any other change.
  let n = 0;
  for (const product of [tee, hoodie, mug]) {
    for (const v of product.variants) {
      demo.variants[v.sku!] = v.id;
      for (const [i, loc] of locations.entries()) {
        const onHand = 10 + ((n++ * 7) % 30) - i * 5;
        await ctx.db.insertInto('inventory_levels').values({ merchant_id: ctx.merchantId, variant_id: v.id, location_id: loc.id, on_hand: onHand }).execute();
        await ctx.db
          .insertInto('inventory_ledger')
          .values({
            merchant_id: ctx.merchantId,
            variant_id: v.id,
            location_id: loc.id,
            on_hand_delta: onHand,
            cause: 'seed',
            reason: 'opening stock',
            reference_id: null,
            api_key_id: null,
          })
          .execute();
      }
    }
  }

  const collection = await createCollection(ctx, { title: 'Summer Essentials', product_ids: [tee.id, mug.id], tag_ids: [tags[0].id] });
  await createVideo(ctx, {
    title: 'Packing for the trail',
    video_url: 'https://videos.example.com/trail.mp4',
    thumbnail_asset_id: images[2].id,
    product_ids: [hoodie.id],
    collection_ids: [collection.id],
    status: 'published',
  });

  await connectedSync(ctx, {
    source_name: 'shopify',
    media_assets: [
      { external_id: 'gid://shopify/MediaImage/1', url: 'https://cdn.shopify.example/beanie.jpg', kind: 'image', alt: 'Beanie' },
      { external_id: 'gid://shopify/Video/1', url: 'https://cdn.shopify.example/beanie.mp4', kind: 'video' },
    ],
    products: [
      {
        external_id: 'gid://shopify/Product/1001',
        title: 'Wool Beanie',
        media_external_ids: ['gid://shopify/MediaImage/1'],
        variants: [{ external_id: 'gid://shopify/ProductVariant/5001', sku: 'BEANIE-GRY', option1: 'Grey', price: 18 }],
      },
    ],
    collections: [
      {
        external_id: 'gid://shopify/Collection/77',
        title: 'Winter (smart)',
        kind: 'smart',
        rules: [{ column: 'title', relation: 'contains', condition: 'Wool' }],
        product_external_ids: ['gid://shopify/Product/1001'],
      },
    ],
    social_videos: [
      {
        external_id: 'gid://shopify/Video/1',
        title: 'Beanie in the wild',
        video_external_id: 'gid://shopify/Video/1',
        product_external_ids: ['gid://shopify/Product/1001'],
      },
    ],
  });
}
