// /collections over HTTP: native manual collections, pending edits, full-set links, review.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startMerchantApp, type TestApp, type TestMerchant } from '../../../test/helpers.ts';
import { connectedSync } from '../../../test/fixtures.ts';

let t: TestApp;
let m: TestMerchant;
let key: string;
let product: { id: string };
let tag: string;
let sync: { collections: { ids: Record<string, string> } };

beforeAll(async () => {
  ({ t, m, key } = await startMerchantApp({ scopes: ['products.read', 'products.write', 'collections.read', 'collections.write', 'collections.submit'] }));
  tag = json(await m.op('POST', '/tags', { name: 'sale' }), 201, 'createTag').data.id;
  product = json(await t.api(key, 'POST', '/products', { title: 'Tee', variants: [{ sku: 'TEE', price: 10 }] }), 201, 'createProduct').data;
  // A connected collection, for the other-merchant check below.
  sync = await connectedSync(m, { source_name: 'shopify', collections: [{ external_id: 'c-1', title: 'Summer', kind: 'smart' }] });
});
afterAll(() => t?.close());

describe('collections', () => {
  it('creates a manual collection, pending edits, full-set links, review', async () => {
    const res = await t.api(key, 'POST', '/collections', { title: 'Summer Picks', product_ids: [product.id], tag_ids: [tag] });
    const c = json(res, 201, 'createCollection').data;
    expect(res.headers.location).toBe(`/api/integrations/v1/collections/${c.id}`);
    expect(c).toMatchObject({
      source: 'native',
      kind: 'manual',
      handle: 'summer-picks',
      review_status: 'not_submitted',
      product_ids: [product.id],
      tag_ids: [tag],
    });
    const patched = json(await t.api(key, 'PATCH', `/collections/${c.id}`, { title: 'Winter', product_ids: [], submit: true }), 200, 'updateCollection').data;
    expect(patched).toMatchObject({ title: 'Summer Picks', pending_title: 'Winter', product_ids: [], tag_ids: [tag], review_status: 'in_review' });
    const approved = json(await m.op('POST', `/collections/${c.id}/review`, { decision: 'approve' }), 200, 'reviewCollection').data;
    expect(approved).toMatchObject({ title: 'Winter', pending_title: null, review_status: 'approved' });
  });

  it("refuses smart collections, other merchants' products and submit without scope", async () => {
    expect(json(await t.api(key, 'POST', '/collections', { title: 'S', kind: 'smart' }), 422, 'createCollection').errors).toEqual([
      { path: '/kind', message: 'is not a known field', code: 'unknown_field' },
    ]);
    const other = await t.merchant();
    const ok = await other.key(['products.write', 'collections.write']);
    const theirs = json(await t.api(ok, 'POST', '/products', { title: 'Theirs' }), 201, 'createProduct').data.id;
    expect(json(await t.api(key, 'POST', '/collections', { title: 'S', product_ids: [theirs] }), 422, 'createCollection').errors).toEqual([
      { path: '/product_ids/0', message: 'is not a product of this merchant', code: 'unknown_id' },
    ]);
    expect(json(await t.api(ok, 'POST', '/collections', { title: 'S', submit: true }), 403, 'createCollection').code).toBe('insufficient_scope');
    expect(json(await t.api(ok, 'PATCH', `/collections/${sync.collections.ids['c-1']}`, { title: 'x' }), 404, 'updateCollection').code).toBe('not_found');
  });
});
