// Connected sync over HTTP: records from an external source beside native ones, read-only here.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../../http/scopes.ts';
import { json, problem, startMerchantApp, type ResponseBody, type TestApp, type TestMerchant } from '../../../test/helpers.ts';
import { connectedSync } from '../../../test/fixtures.ts';

let t: TestApp;
let m: TestMerchant;
let key: string;
let tag: string;
let sync: ResponseBody<'syncConnectedSource', 200>['data'];

/** Every catalog scope: products, collections and social videos. */
const ALL = SCOPES.filter((s) => /^(products|collections|social_videos)\./.test(s));

beforeAll(async () => {
  ({ t, m, key } = await startMerchantApp({ scopes: ALL }));
  tag = json(await m.op('POST', '/tags', { name: 'sale' }), 201, 'createTag').data.id;
  // A native product, listed beside the connected one.
  json(await t.api(key, 'POST', '/products', { title: 'Tee', variants: [{ sku: 'TEE', price: 10 }] }), 201, 'createProduct');
  sync = await connectedSync(m, {
    source_name: 'shopify',
    media_assets: [
      { external_id: 'img-1', url: 'https://cdn.example.com/1.jpg', kind: 'image' },
      { external_id: 'vid-1', url: 'https://cdn.example.com/1.mp4', kind: 'video' },
    ],
    products: [
      {
        external_id: 'p-1',
        title: 'Synced Tee',
        media_external_ids: ['img-1'],
        tag_ids: [tag],
        variants: [
          { external_id: 'v-1', sku: 'TEE', price: 12.5, media_external_id: 'img-1' },
          { external_id: 'v-2', sku: 'TEE-2', price: 13 },
        ],
      },
    ],
    collections: [
      {
        external_id: 'c-1',
        title: 'Summer',
        kind: 'smart',
        rules: [{ column: 'tag', relation: 'equals', condition: 'summer' }],
        product_external_ids: ['p-1'],
      },
    ],
    social_videos: [{ external_id: 's-1', title: 'Unboxing', video_external_id: 'vid-1', product_external_ids: ['p-1'], collection_external_ids: ['c-1'] }],
  });
});
afterAll(() => t?.close());

describe('connected records', () => {
  it('sync reports what it created, by external id, and the records list beside native ones', async () => {
    expect(sync.products).toEqual({ created: 1, updated: 0, ids: { 'p-1': expect.any(String) } });
    expect(sync.media_assets).toMatchObject({ created: 2, updated: 0 });
    expect(sync.collections).toMatchObject({ created: 1, updated: 0 });
    expect(sync.social_videos).toMatchObject({ created: 1, updated: 0 });
    const p = json(await t.api(key, 'GET', `/products/${sync.products.ids['p-1']}`), 200, 'getProduct').data;
    expect(p).toMatchObject({
      source: 'connected',
      source_name: 'shopify',
      external_id: 'p-1',
      title: 'Synced Tee',
      handle: 'synced-tee',
      status: 'active',
      tag_ids: [tag],
      primary_image_asset_id: sync.media_assets.ids['img-1'],
    });
    // A connected variant may repeat a native SKU.
    expect(p.variants.map((v) => [v.external_id, v.sku, v.price, v.media_asset_id])).toEqual([
      ['v-1', 'TEE', 12.5, sync.media_assets.ids['img-1']],
      ['v-2', 'TEE-2', 13, null],
    ]);
    const list = json(await t.api(key, 'GET', '/products'), 200, 'listProducts').data;
    expect(list.map((x) => x.source).sort()).toEqual(['connected', 'native']);
    const c = json(await t.api(key, 'GET', `/collections/${sync.collections.ids['c-1']}`), 200, 'getCollection').data;
    expect(c).toMatchObject({ kind: 'smart', source: 'connected', product_ids: [p.id] });
    const v = json(await t.api(key, 'GET', `/social-videos/${sync.social_videos.ids['s-1']}`), 200, 'getSocialVideo').data;
    expect(v).toMatchObject({
      source: 'connected',
      video_asset_id: sync.media_assets.ids['vid-1'],
      product_ids: [p.id],
      collection_ids: [c.id],
      status: 'published',
    });
    const assets = json(await t.api(key, 'GET', '/media-assets'), 200, 'listMediaAssets').data;
    expect(
      assets
        .filter((a) => a.source === 'connected')
        .map((a) => a.external_id)
        .sort(),
    ).toEqual(['img-1', 'vid-1']);
  });

  it('a second sync updates in place and drops variants no longer sent', async () => {
    const again = await connectedSync(m, {
      source_name: 'shopify',
      products: [{ external_id: 'p-1', title: 'Synced Tee 2', variants: [{ external_id: 'v-2', sku: 'TEE-2', price: 14 }] }],
    });
    expect(again.products).toEqual({ created: 0, updated: 1, ids: { 'p-1': sync.products.ids['p-1'] } });
    const p = json(await t.api(key, 'GET', `/products/${sync.products.ids['p-1']}`), 200, 'getProduct').data;
    expect(p.title).toBe('Synced Tee 2');
    expect(p.variants.map((v) => [v.external_id, v.price])).toEqual([['v-2', 14]]);
  });

  it('PATCH of any connected record is 409 read_only_record and leaves it byte-identical', async () => {
    const targets = [
      [`/products/${sync.products.ids['p-1']}`, { title: 'Hacked' }],
      [`/collections/${sync.collections.ids['c-1']}`, { title: 'Hacked' }],
      [`/social-videos/${sync.social_videos.ids['s-1']}`, { title: 'Hacked' }],
    ] as const;
    for (const [path, body] of targets) {
      const before = (await t.api(key, 'GET', path)).body;
      const res = problem(await t.api(key, 'PATCH', path, body), 409);
      expect(res.code).toBe('read_only_record');
      const after = (await t.api(key, 'GET', path)).body;
      expect(JSON.parse(after).data).toEqual(JSON.parse(before).data);
    }
  });

  it('a sync naming unknown external ids fails whole with pointers', async () => {
    const res = json(
      await m.op('POST', '/connected-sync', { source_name: 'shopify', collections: [{ external_id: 'c-9', title: 'X', product_external_ids: ['nope'] }] }),
      422,
      'syncConnectedSource',
    );
    expect(res.errors).toEqual([
      { path: '/collections/0/product_external_ids/0', message: 'no product with external_id "nope" from shopify', code: 'unknown_id' },
    ]);
    expect(json(await t.api(key, 'GET', '/collections'), 200, 'listCollections').data).toHaveLength(1);
  });
});
