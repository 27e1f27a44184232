// /social-videos over HTTP: exactly one video source, PATCHes applied at once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiDocument } from '../../../scripts/openapi.ts';
import { json, startMerchantApp, type TestApp } from '../../../test/helpers.ts';
import { requestBodySchema } from '../../../test/contract.ts';

let t: TestApp;
let key: string;
let product: { id: string };

beforeAll(async () => {
  ({ t, key } = await startMerchantApp({ scopes: ['products.read', 'products.write', 'social_videos.read', 'social_videos.write'] }));
  product = json(await t.api(key, 'POST', '/products', { title: 'Tee', variants: [{ sku: 'TEE', price: 10 }] }), 201, 'createProduct').data;
});
afterAll(() => t?.close());

describe('social videos', () => {
  it('creates with exactly one video source and applies PATCHes at once', async () => {
    const res = await t.api(key, 'POST', '/social-videos', { title: 'How to', video_url: 'https://videos.example.com/a.mp4', product_ids: [product.id] });
    const v = json(res, 201, 'createSocialVideo').data;
    expect(v).toMatchObject({
      source: 'native',
      status: 'draft',
      video_url: 'https://videos.example.com/a.mp4',
      video_asset_id: null,
      product_ids: [product.id],
      collection_ids: [],
    });
    const patched = json(
      await t.api(key, 'PATCH', `/social-videos/${v.id}`, { title: 'How to 2', status: 'published', product_ids: [] }),
      200,
      'updateSocialVideo',
    ).data;
    expect(patched).toMatchObject({ title: 'How to 2', status: 'published', product_ids: [] });
    expect(json(await t.api(key, 'POST', '/social-videos', { title: 'x' }), 422, 'createSocialVideo').errors?.[0].code).toBe('one_of');
    // One answer names the missing source and every unknown reference.
    const unknown = '0190a0a0-0000-7000-8000-000000000000';
    expect(json(await t.api(key, 'POST', '/social-videos', { title: 'x', product_ids: [unknown] }), 422, 'createSocialVideo').errors).toEqual([
      { path: '/video_url', message: 'give exactly one of video_url or video_asset_id', code: 'one_of' },
      { path: '/product_ids/0', message: 'is not a product of this merchant', code: 'unknown_id' },
    ]);
    expect(json(await t.api(key, 'PATCH', `/social-videos/${v.id}`, { video_url: null, collection_ids: [unknown] }), 422, 'updateSocialVideo').errors).toEqual([
      { path: '/video_url', message: 'give exactly one of video_url or video_asset_id', code: 'one_of' },
      { path: '/collection_ids/0', message: 'is not a collection of this merchant', code: 'unknown_id' },
    ]);
    expect(
      json(await t.api(key, 'POST', '/social-videos', { title: 'x', video_url: 'http://insecure.example.com/a.mp4' }), 422, 'createSocialVideo').errors?.[0]
        .path,
    ).toBe('/video_url');
  });

  it('the document states the rule in words on a plain object (no oneOf for generators to collapse)', async () => {
    const schema = requestBodySchema(await openApiDocument(), '/api/integrations/v1/social-videos', 'post');
    expect([schema.oneOf, schema.anyOf, schema.allOf, schema.required]).toEqual([undefined, undefined, undefined, ['title']]);
    expect(schema.description).toBe('Give exactly one of `video_url` and `video_asset_id`: 422 `one_of` at `/video_url` otherwise.');
    expect(Object.keys(schema.properties)).toEqual(
      expect.arrayContaining(['title', 'description', 'status', 'video_url', 'video_asset_id', 'thumbnail_asset_id', 'product_ids', 'collection_ids']),
    );
  });
});
