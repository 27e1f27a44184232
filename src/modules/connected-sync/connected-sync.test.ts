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

  it('a product synced without variants has one default variant, as a native one (it had none), kept by the next sync without variants', async () => {
    const first = await connectedSync(m, { source_name: 'shopify', products: [{ external_id: 'p-bare', title: 'Bare' }] });
    const id = first.products.ids['p-bare'];
    const variants = async () => json(await t.api(key, 'GET', `/products/${id}`), 200, 'getProduct').data.variants;
    const [made] = await variants();
    expect(made).toMatchObject({ option1: 'Default', price: 0, sku: null, external_id: null });
    await connectedSync(m, { source_name: 'shopify', products: [{ external_id: 'p-bare', title: 'Bare again', variants: [] }] });
    expect((await variants()).map((v) => v.id)).toEqual([made.id]);
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

  it('an asset whose url changes changes what shows it: those records move on and emit *.updated, native ones too; an unchanged asset changes nothing', async () => {
    // A native product and collection showing the connected image.
    const image = sync.media_assets.ids['img-1'];
    const nativeProduct = json(await t.api(key, 'POST', '/products', { title: 'Native with image', primary_image_asset_id: image }), 201, 'createProduct').data;
    const nativeCollection = json(
      await t.api(key, 'POST', '/collections', { title: 'Native collection', primary_image_asset_id: image }),
      201,
      'createCollection',
    ).data;
    const connectedProduct = sync.products.ids['p-1'];
    await connectedSync(m, {
      source_name: 'shopify',
      products: [{ external_id: 'p-1', title: 'Synced Tee 2', media_external_ids: ['img-1'], variants: [{ external_id: 'v-2', sku: 'TEE-2', price: 14 }] }],
    });
    const stamp = async (path: string) => json(await t.api(key, 'GET', path), 200, 'getProduct').data as { updated_at: string; media?: { url: string }[] };
    const before = await Promise.all([`/products/${nativeProduct.id}`, `/products/${connectedProduct}`].map(stamp));
    const eventsBefore = await t.database.db.selectFrom('events').select('id').where('merchant_id', '=', m.id).execute();

    // The same url again: nothing changed, nothing moves and nothing is emitted.
    await connectedSync(m, { source_name: 'shopify', media_assets: [{ external_id: 'img-1', url: 'https://cdn.example.com/1.jpg', kind: 'image' }] });
    expect((await t.database.db.selectFrom('events').select('id').where('merchant_id', '=', m.id).execute()).length).toBe(eventsBefore.length);

    // A new url: it showed in the answers, with no event and the same updated_at.
    await connectedSync(m, { source_name: 'shopify', media_assets: [{ external_id: 'img-1', url: 'https://cdn.example.com/1-v2.jpg', kind: 'image' }] });
    const after = await Promise.all([`/products/${nativeProduct.id}`, `/products/${connectedProduct}`].map(stamp));
    for (const [i, record] of after.entries()) {
      expect(record.media?.[0].url).toBe('https://cdn.example.com/1-v2.jpg');
      expect(record.updated_at > before[i].updated_at).toBe(true);
    }
    const emitted = await t.database.db
      .selectFrom('events')
      .select(['type', 'payload'])
      .where('merchant_id', '=', m.id)
      .where(
        'id',
        'not in',
        eventsBefore.map((e) => e.id),
      )
      .execute();
    const objectIds = emitted.map((e) => [e.type, (e.payload as { object: { id: string } }).object.id]);
    expect(objectIds.sort()).toEqual(
      [
        ['collection.updated', nativeCollection.id],
        ['product.updated', connectedProduct],
        ['product.updated', nativeProduct.id],
      ].sort(),
    );
    const updated = json(await t.api(key, 'GET', `/products?updated_after=${encodeURIComponent(before[0].updated_at)}`), 200, 'listProducts').data;
    expect(updated.map((p) => p.id)).toEqual(expect.arrayContaining([nativeProduct.id, connectedProduct]));
  });

  it("an external_id sent twice in one list (or among one product's variants) is 422 naming the repeat: the same sync sent again gave another result", async () => {
    const res = json(
      await m.op('POST', '/connected-sync', {
        source_name: 'shopify',
        media_assets: [
          { external_id: 'dup-a', url: 'https://cdn.example.com/a.jpg', kind: 'image' },
          { external_id: 'dup-a', url: 'https://cdn.example.com/b.jpg', kind: 'image' },
        ],
        products: [
          {
            external_id: 'dup-p',
            title: 'Twice',
            variants: [
              { external_id: 'x', sku: 'DX-A', price: 1 },
              { external_id: 'x', sku: 'DX-B', price: 2 },
            ],
          },
          { external_id: 'dup-p', title: 'Twice again' },
        ],
      }),
      422,
      'syncConnectedSource',
    );
    expect(res.errors).toEqual([
      { path: '/media_assets/1/external_id', message: 'repeats the external_id of /media_assets/0', code: 'duplicate' },
      { path: '/products/1/external_id', message: 'repeats the external_id of /products/0', code: 'duplicate' },
      { path: '/products/0/variants/1/external_id', message: 'repeats the external_id of /products/0/variants/0', code: 'duplicate' },
    ]);
    expect(json(await t.api(key, 'GET', '/products?limit=250'), 200, 'listProducts').data.some((p) => p.external_id === 'dup-p')).toBe(false);
  });

  it("a variant's price, compare-at price and weight keep the native decimals rule: refused by name, not rounded (1.234 became 1.23)", async () => {
    const res = json(
      await m.op('POST', '/connected-sync', {
        source_name: 'shopify',
        products: [
          {
            external_id: 'p-round',
            title: 'Rounded',
            variants: [
              { external_id: 'v-round', price: 1.234, compare_at_price: 2.345, weight: 1.23456 },
              { external_id: 'v-fine', price: 1.2, compare_at_price: null, weight: 1.234 },
            ],
          },
        ],
      }),
      422,
      'syncConnectedSource',
    );
    expect(res.errors).toEqual([
      { path: '/products/0/variants/0/price', message: 'must be a non-negative amount with at most 2 decimals', code: 'invalid_format' },
      { path: '/products/0/variants/0/compare_at_price', message: 'must be a non-negative amount with at most 2 decimals', code: 'invalid_format' },
      { path: '/products/0/variants/0/weight', message: 'must have at most 3 decimals', code: 'invalid_format' },
    ]);
    expect(json(await t.api(key, 'GET', '/products?limit=250'), 200, 'listProducts').data.some((p) => p.external_id === 'p-round')).toBe(false);
  });

  it("a social video's video must be a video asset, as natively (an image was taken)", async () => {
    const res = json(
      await m.op('POST', '/connected-sync', {
        source_name: 'shopify',
        social_videos: [{ external_id: 's-img', title: 'Not a video', video_external_id: 'img-1' }],
      }),
      422,
      'syncConnectedSource',
    );
    expect(res.errors).toEqual([{ path: '/social_videos/0/video_external_id', message: 'media asset "img-1" is not a video', code: 'unknown_id' }]);
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
    // Nothing written: the one connected collection is still the first sync's (a native one was added since).
    expect(json(await t.api(key, 'GET', '/collections'), 200, 'listCollections').data.filter((c) => c.source === 'connected')).toHaveLength(1);
  });
});
