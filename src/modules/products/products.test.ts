// Products over HTTP: create, read, PATCH semantics, review, validation, isolation, query count.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countStatements, json, statementsOf, startMerchantApp, walk, type TestApp, type TestMerchant } from '../../../test/helpers.ts';

let t: TestApp;
let m: TestMerchant;
let key: string;
let vendor: string;
let tags: string[];
let images: string[];

beforeAll(async () => {
  ({ t, m, key } = await startMerchantApp({ scopes: ['products.read', 'products.write', 'products.submit', 'inventory.adjust', 'inventory.read'] }));
  vendor = json(await m.op('POST', '/vendors', { name: 'Acme' }), 201, 'createVendor').data.id;
  tags = [];
  for (const n of ['a', 'b', 'c']) tags.push(json(await m.op('POST', '/tags', { name: n }), 201, 'createTag').data.id);
  images = [];
  for (const n of [1, 2, 3])
    images.push(json(await m.op('POST', '/media-assets', { url: `https://img.example.com/${n}.jpg`, kind: 'image' }), 201, 'createMediaAsset').data.id);
});
afterAll(() => t?.close());

const create = (body: unknown, k = key) => t.api(k, 'POST', '/products', body);

describe('blank text', () => {
  it('a title of spaces only is refused, on create and PATCH (it was stored as the title)', async () => {
    const blank = { path: '/title', message: 'must not be blank', code: 'invalid_format' };
    expect(json(await create({ title: ' \t\n ' }), 422, 'createProduct').errors).toEqual([blank]);
    // Invisible characters alone are blank too (a zero-width space made product "item-22").
    for (const title of ['\u200b\u200b', '\u200d', '\u00ad \u2060', '\u3164', '\u0001\u007f', '\ufeff']) {
      expect(json(await create({ title }), 422, 'createProduct').errors).toEqual([blank]);
    }
    expect(json(await create({ title: '\u200bZero-width first' }), 201, 'createProduct').data.title).toBe('\u200bZero-width first');
    expect(json(await create({ title: '漢 Kanji' }), 201, 'createProduct').data.title).toBe('漢 Kanji');
    const p = json(await create({ title: ' Spaced ' }), 201, 'createProduct').data;
    expect(p.title).toBe(' Spaced ');
    expect(json(await t.api(key, 'PATCH', `/products/${p.id}`, { title: '   ' }), 422, 'updateProduct').errors).toEqual([blank]);
    const curator = await m.key(['collections.write']);
    expect(json(await t.api(curator, 'POST', '/collections', { title: '  ' }), 422, 'createCollection').errors).toEqual([blank]);
  });
});

describe('Idempotency-Key on catalog writes', () => {
  it('a create retried with its key replays the stored answer: one product (a retry after a lost answer made a second)', async () => {
    const body = { title: 'Retried', variants: [{ sku: 'IDEM-1', price: 5 }] };
    const headers = { 'idempotency-key': 'create-retried-1' };
    const one = await t.api(key, 'POST', '/products', body, headers);
    const made = json(one, 201, 'createProduct').data;
    const again = await t.api(key, 'POST', '/products', body, headers);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.headers.location).toBe(`/api/integrations/v1/products/${made.id}`);
    expect(json(again, 201, 'createProduct').data).toEqual(made);
    expect(json(await t.api(key, 'POST', '/products', { ...body, title: 'Other' }, headers), 422, 'createProduct').code).toBe('idempotency_key_reused');
    const titled = json(await t.api(key, 'GET', '/products?limit=250'), 200, 'listProducts').data.filter((p) => p.variants.some((v) => v.sku === 'IDEM-1'));
    expect(titled.map((p) => p.id)).toEqual([made.id]);
    // The submit scope is checked before the key: a refusal is not stored, the same request with the scope is applied.
    const writer = await m.key(['products.write', 'products.read']);
    const submit = { 'idempotency-key': 'create-submit-1' };
    expect(json(await t.api(writer, 'POST', '/products', { title: 'Sub', submit: true }, submit), 403, 'createProduct').code).toBe('insufficient_scope');
    expect(json(await t.api(key, 'POST', '/products', { title: 'Sub', submit: true }, submit), 201, 'createProduct').data.review_status).toBe('in_review');
  });

  it('a PATCH adding a variant retried with its key replays (the retry answered 422 taken for the SKU the first one added)', async () => {
    const p = json(await create({ title: 'Grows', variants: [{ sku: 'GROW-1', price: 1 }] }), 201, 'createProduct').data;
    const patch = { variants: [{ id: p.variants[0].id }, { sku: 'GROW-2', price: 2 }] };
    const headers = { 'idempotency-key': 'patch-grows-1' };
    const grown = json(await t.api(key, 'PATCH', `/products/${p.id}`, patch, headers), 200, 'updateProduct').data;
    expect(grown.variants.map((v) => v.sku)).toEqual(['GROW-1', 'GROW-2']);
    const again = await t.api(key, 'PATCH', `/products/${p.id}`, patch, headers);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(json(again, 200, 'updateProduct').data).toEqual(grown);
    // Without a key the same PATCH is applied again: its new variant's SKU is the one the first added.
    expect(json(await t.api(key, 'PATCH', `/products/${p.id}`, patch), 422, 'updateProduct').errors?.[0].code).toBe('taken');
  });
});

describe('create', () => {
  it('creates a draft native product with variants, media, tags and a Location header', async () => {
    const res = await create({
      title: 'Blue Shirt!',
      description: 'Soft',
      vendor_id: vendor,
      primary_image_asset_id: images[0],
      gallery_asset_ids: [images[1], images[2]],
      tag_ids: [tags[1], tags[0]],
      variants: [
        { sku: 'BS-S', option1: 'S', price: 19.99, compare_at_price: 25, weight: 200, weight_unit: 'g', media_asset_id: images[1] },
        { sku: 'BS-M', option1: 'M', price: 21.5, inventory_policy: 'continue', requires_shipping: false },
      ],
    });
    const p = json(res, 201, 'createProduct').data;
    expect(res.headers.location).toBe(`/api/integrations/v1/products/${p.id}`);
    expect(p).toMatchObject({
      source: 'native',
      source_name: null,
      external_id: null,
      title: 'Blue Shirt!',
      description: 'Soft',
      handle: 'blue-shirt',
      status: 'draft',
      review_status: 'not_submitted',
      pending_title: null,
      pending_description: null,
      vendor_id: vendor,
      primary_image_asset_id: images[0],
      gallery_asset_ids: [images[1], images[2]],
      tag_ids: [tags[1], tags[0]],
    });
    expect(p.media).toEqual([
      { id: images[0], url: 'https://img.example.com/1.jpg', kind: 'image', position: 0 },
      { id: images[1], url: 'https://img.example.com/2.jpg', kind: 'image', position: 1 },
      { id: images[2], url: 'https://img.example.com/3.jpg', kind: 'image', position: 2 },
    ]);
    expect(p.variants).toHaveLength(2);
    expect(p.variants[0]).toEqual({
      id: expect.any(String),
      external_id: null,
      sku: 'BS-S',
      option1: 'S',
      option2: null,
      option3: null,
      price: 19.99,
      compare_at_price: 25,
      barcode: null,
      inventory_policy: 'deny',
      media_asset_id: images[1],
      shipping_profile: null,
      requires_shipping: true,
      weight: 200,
      weight_unit: 'g',
      inventory: [],
    });
    expect(p.variants[1]).toMatchObject({ sku: 'BS-M', price: 21.5, inventory_policy: 'continue', requires_shipping: false });
    expect(json(await t.api(key, 'GET', `/products/${p.id}`), 200, 'getProduct').data).toEqual(p);
  });

  it('gives a product without variants one default variant, and makes handles unique', async () => {
    const a = json(await create({ title: 'Mug' }), 201, 'createProduct').data;
    const b = json(await create({ title: 'mug' }), 201, 'createProduct').data;
    const c = json(await create({ title: 'Other', handle: 'Mug' }), 201, 'createProduct').data;
    expect([a.handle, b.handle, c.handle]).toEqual(['mug', 'mug-2', 'mug-3']);
    // Only ASCII letters and digits stay; every other run is one "-", nothing is transliterated (contract §6).
    const titles = ['Café Crème', '  Ｍｕｇ №5 ', 'K\u212Aelvin', '!!!', '日本'];
    const handles = [];
    for (const title of titles) handles.push(json(await create({ title }), 201, 'createProduct').data.handle);
    expect(handles).toEqual(['caf-cr-me', '5', 'k-elvin', 'item', 'item-2']);
    expect(a.variants).toHaveLength(1);
    expect(a.variants[0]).toMatchObject({ option1: 'Default', price: 0, sku: null });
  });

  it('names every bad field: other merchant ids, missing price, taken and duplicate SKUs, money precision', async () => {
    const other = await t.merchant();
    const foreignTag = json(await other.op('POST', '/tags', { name: 'x' }), 201, 'createTag').data.id;
    // The shape first, every error of it in one answer: a missing price with an unknown field (the
    // price came only after the unknown field was fixed; the document did not say it was required).
    const shape = json(await create({ title: 'X', bogus: 1, variants: [{ sku: 'A1' }, { sku: 'A2', price: 'x' }] }), 422, 'createProduct');
    expect(shape.errors).toEqual([
      { path: '/variants/0/price', message: 'is required', code: 'required' },
      { path: '/variants/1/price', message: 'must be number', code: 'invalid_type' },
      { path: '/bogus', message: 'is not a known field', code: 'unknown_field' },
    ]);
    const refs = json(await create({ title: 'X', tag_ids: [tags[0], foreignTag], vendor_id: foreignTag }), 422, 'createProduct');
    expect(refs.errors).toEqual([
      { path: '/vendor_id', message: 'is not a vendor of this merchant', code: 'unknown_id' },
      { path: '/tag_ids/1', message: 'is not a tag of this merchant', code: 'unknown_id' },
    ]);
    const dup = json(
      await create({
        title: 'X',
        variants: [
          { sku: 'BS-S', price: 1 },
          { sku: 'Q', price: 1 },
          { sku: 'Q', price: 1.001 },
        ],
      }),
      422,
      'createProduct',
    );
    expect(dup.errors?.map((e: { path: string; code: string }) => `${e.path}:${e.code}`)).toEqual([
      '/variants/2/price:invalid_format',
      '/variants/2/sku:duplicate',
      '/variants/0/sku:taken',
    ]);
    const taken = json(await create({ title: 'X', variants: [{ sku: 'BS-S', price: 1 }] }), 422, 'createProduct');
    expect(taken.errors).toEqual([{ path: '/variants/0/sku', message: '"BS-S" is already used by another variant', code: 'taken' }]);
    const all = json(
      await create({
        title: 'X',
        tag_ids: [foreignTag],
        variants: [
          { sku: 'BS-S', price: 1 },
          { sku: 'BS-S', price: 1 },
          { sku: 'R', price: 1.001 },
        ],
      }),
      422,
      'createProduct',
    );
    expect(all.errors).toEqual([
      { path: '/variants/1/sku', message: 'repeats the SKU of /variants/0', code: 'duplicate' },
      { path: '/variants/2/price', message: 'must be a non-negative amount with at most 2 decimals', code: 'invalid_format' },
      { path: '/tag_ids/0', message: 'is not a tag of this merchant', code: 'unknown_id' },
      { path: '/variants/0/sku', message: '"BS-S" is already used by another variant', code: 'taken' },
    ]);
    const product = json(await create({ title: 'Y', variants: [{ sku: 'BS-Y', price: 1 }] }), 201, 'createProduct').data;
    const patched = json(
      await t.api(key, 'PATCH', `/products/${product.id}`, { tag_ids: [foreignTag], variants: [{ id: product.variants[0].id, sku: 'BS-S' }, { sku: 'BS-Z' }] }),
      422,
      'updateProduct',
    );
    expect(patched.errors).toEqual([
      { path: '/variants/1/price', message: 'is required', code: 'required' },
      { path: '/tag_ids/0', message: 'is not a tag of this merchant', code: 'unknown_id' },
      { path: '/variants/0/sku', message: '"BS-S" is already used by another variant', code: 'taken' },
    ]);
    const unknown = json(await create({ title: 'X', status: 'active', variants: [{ price: 1, colour: 'red' }] }), 422, 'createProduct');
    expect(unknown.errors?.map((e: { path: string }) => e.path).sort()).toEqual(['/status', '/variants/0/colour']);
  });

  it('submit needs products.submit', async () => {
    const writer = await m.key(['products.write']);
    expect(json(await create({ title: 'S', submit: true }, writer), 403, 'createProduct').code).toBe('insufficient_scope');
    expect(json(await create({ title: 'S', submit: true }), 201, 'createProduct').data.review_status).toBe('in_review');
  });
});

describe('patch and review', () => {
  it('title/description become pending; variants and tags replace at once; approve goes live and activates', async () => {
    const p = json(
      await create({
        title: 'Cap',
        tag_ids: [tags[0]],
        variants: [
          { sku: 'CAP-1', price: 5 },
          { sku: 'CAP-2', price: 6 },
        ],
      }),
      201,
      'createProduct',
    ).data;
    const patched = json(
      await t.api(key, 'PATCH', `/products/${p.id}`, {
        title: 'Cap v2',
        description: 'New',
        variants: [
          { id: p.variants[1].id, price: 7 },
          { sku: 'CAP-3', price: 8, option1: 'L' },
        ],
        tag_ids: [tags[2]],
      }),
      200,
      'updateProduct',
    ).data;
    expect(patched).toMatchObject({
      title: 'Cap',
      description: null,
      pending_title: 'Cap v2',
      pending_description: 'New',
      review_status: 'not_submitted',
      tag_ids: [tags[2]],
    });
    expect(patched.variants.map((v) => [v.sku, v.price])).toEqual([
      ['CAP-2', 7],
      ['CAP-3', 8],
    ]);
    expect(patched.variants[0].id).toBe(p.variants[1].id);
    // The removed variant's SKU is free again.
    expect(json(await create({ title: 'Y', variants: [{ sku: 'CAP-1', price: 1 }] }), 201, 'createProduct').data.variants[0].sku).toBe('CAP-1');

    expect(json(await m.op('POST', `/products/${p.id}/review`, { decision: 'approve' }), 409, 'reviewProduct').code).toBe('invalid_state');
    expect(json(await t.api(key, 'PATCH', `/products/${p.id}`, { submit: true }), 200, 'updateProduct').data.review_status).toBe('in_review');
    const approved = json(await m.op('POST', `/products/${p.id}/review`, { decision: 'approve' }), 200, 'reviewProduct').data;
    expect(approved).toMatchObject({
      title: 'Cap v2',
      description: 'New',
      pending_title: null,
      pending_description: null,
      review_status: 'approved',
      status: 'active',
    });

    await t.api(key, 'PATCH', `/products/${p.id}`, { title: 'Cap v3', submit: true });
    const rejected = json(await m.op('POST', `/products/${p.id}/review`, { decision: 'reject' }), 200, 'reviewProduct').data;
    expect(rejected).toMatchObject({ title: 'Cap v2', pending_title: 'Cap v3', review_status: 'rejected', status: 'active' });
  });

  it('refuses removing every variant, foreign or repeated variant ids and unknown fields', async () => {
    const p = json(await create({ title: 'Hat' }), 201, 'createProduct').data;
    const q = json(await create({ title: 'Hat 2' }), 201, 'createProduct').data;
    expect(json(await t.api(key, 'PATCH', `/products/${p.id}`, { variants: [] }), 422, 'updateProduct').errors?.[0].path).toBe('/variants');
    expect(json(await t.api(key, 'PATCH', `/products/${p.id}`, { variants: [{ id: q.variants[0].id, price: 1 }] }), 422, 'updateProduct').errors).toEqual([
      { path: '/variants/0/id', message: 'is not a variant of this product', code: 'unknown_id' },
    ]);
    // A known id listed twice is a repeat, not an unknown id (a client branching on code was misled).
    const twice = { variants: [{ id: p.variants[0].id }, { id: p.variants[0].id }] };
    expect(json(await t.api(key, 'PATCH', `/products/${p.id}`, twice), 422, 'updateProduct').errors).toEqual([
      { path: '/variants/1/id', message: 'is listed twice', code: 'duplicate' },
    ]);
    expect(json(await t.api(key, 'PATCH', `/products/${p.id}`, { handle: 'x' }), 422, 'updateProduct').errors?.[0]).toEqual({
      path: '/handle',
      message: 'is not a known field',
      code: 'unknown_field',
    });
    expect(json(await t.api(key, 'GET', `/products/${p.id}`), 200, 'getProduct').data).toEqual(p);
  });

  it("another merchant's product is 404 for read and write", async () => {
    const other = await t.merchant();
    const otherKey = await other.key(['products.read', 'products.write']);
    const p = json(await create({ title: 'Mine' }), 201, 'createProduct').data;
    expect(json(await t.api(otherKey, 'GET', `/products/${p.id}`), 404, 'getProduct').code).toBe('not_found');
    expect(json(await t.api(otherKey, 'PATCH', `/products/${p.id}`, { title: 'x' }), 404, 'updateProduct').code).toBe('not_found');
    expect(json(await t.api(otherKey, 'GET', '/products'), 200, 'listProducts').data).toEqual([]);
  });
});

describe('lists', () => {
  /**
   * Another merchant's catalog of `count` products (`${prefix}0`, `${prefix}1`, …), each with an
   * image, a tag and two variants: its products key and the last product's id.
   */
  async function otherCatalog(count: number, prefix: string) {
    const other = await t.merchant();
    const k = await other.key(['products.read', 'products.write']);
    const img = json(await other.op('POST', '/media-assets', { url: 'https://img.example.com/x.jpg', kind: 'image' }), 201, 'createMediaAsset').data.id;
    const tag = json(await other.op('POST', '/tags', { name: 't' }), 201, 'createTag').data.id;
    let lastId = '';
    for (let i = 0; i < count; i++) {
      const body = {
        title: `${prefix}${i}`,
        primary_image_asset_id: img,
        gallery_asset_ids: [img],
        tag_ids: [tag],
        variants: [
          { sku: `${prefix}${i}a`, price: 1 },
          { sku: `${prefix}${i}b`, price: 2 },
        ],
      };
      lastId = json(await t.api(k, 'POST', '/products', body), 201, 'createProduct').data.id;
    }
    return { k, lastId };
  }

  it('walks every product once and costs a constant number of queries per page', async () => {
    const { k } = await otherCatalog(55, 'P');
    const { ids, pages } = await walk(t, k, '/products', 20);
    expect(ids).toHaveLength(55);
    expect(new Set(ids).size).toBe(55);
    expect(pages).toBe(3);

    const count = (limit: number) =>
      countStatements(async () => expect(json(await t.api(k, 'GET', `/products?limit=${limit}`), 200, 'listProducts').data).toHaveLength(limit));
    const small = await count(5);
    const large = await count(50);
    expect(large).toBe(small);
    expect(large).toBeLessThanOrEqual(8);
  });

  it('a page of any size, and one product, is one statement: the same count as a flat list of tags', async () => {
    const { k, lastId: id } = await otherCatalog(12, 'Q');
    const statements = async (path: string) =>
      (await statementsOf(async () => expect((await t.api(k, 'GET', path)).statusCode).toBe(200))).filter((q) => !/request_log/i.test(q));
    const flat = (await statements('/tags?limit=50')).length;
    for (const path of ['/products?limit=1', '/products?limit=12', `/products/${id}`]) {
      const seen = await statements(path);
      expect(seen.filter((q) => /from "products"/.test(q))).toHaveLength(1);
      expect(seen).toHaveLength(flat);
    }
  });
});
