// Reference data over HTTP: locations, vendors, tags and media assets, as integrators discover ids.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startMerchantApp, type TestApp, type TestMerchant } from '../../../test/helpers.ts';

let t: TestApp;
let m: TestMerchant;

beforeAll(async () => {
  ({ t, m } = await startMerchantApp());
});
afterAll(() => t?.close());

describe('locations', () => {
  it('a location-restricted key lists only its own locations', async () => {
    const key = await m.key(['orders.read'], [m.locations[1]]);
    const body = json(await t.api(key, 'GET', '/locations'), 200, 'listLocations');
    expect(body.data.map((l: { id: string }) => l.id)).toEqual([m.locations[1]]);
  });
});

describe('vendors, tags and media assets', () => {
  it("each lists only the merchant's own rows", async () => {
    const key = await m.key(['products.read']);
    const other = await t.merchant();
    for (const path of ['/vendors', '/tags']) json(await other.op('POST', path, { name: 'Theirs' }), 201, path === '/tags' ? 'createTag' : 'createVendor');
    json(await other.op('POST', '/media-assets', { url: 'https://img.example.com/theirs.jpg', kind: 'image' }), 201, 'createMediaAsset');
    const vendor = json(await m.op('POST', '/vendors', { name: 'Acme' }), 201, 'createVendor').data;
    const tag = json(await m.op('POST', '/tags', { name: 'sale' }), 201, 'createTag').data;
    const asset = json(await m.op('POST', '/media-assets', { url: 'https://img.example.com/1.jpg', kind: 'image' }), 201, 'createMediaAsset').data;
    expect(json(await t.api(key, 'GET', '/vendors'), 200, 'listVendors').data).toEqual([vendor]);
    expect(json(await t.api(key, 'GET', '/tags'), 200, 'listTags').data).toEqual([tag]);
    expect(json(await t.api(key, 'GET', '/media-assets'), 200, 'listMediaAssets').data).toEqual([asset]);
  });
});

describe('media asset URLs', () => {
  it('must be http(s): javascript:, data: and ftp: URLs are refused, by the operator and by a connected sync (they were stored)', async () => {
    const r = await t.merchant();
    const wrong = { message: 'must be an http(s) URL', code: 'invalid_format' };
    for (const url of ['javascript:alert(1)', 'data:image/png;base64,AAAA', 'ftp://img.example.com/1.jpg']) {
      expect(json(await r.op('POST', '/media-assets', { url, kind: 'image' }), 422, 'createMediaAsset').errors).toEqual([{ path: '/url', ...wrong }]);
      const synced = await r.op('POST', '/connected-sync', { source_name: 'shop', media_assets: [{ external_id: 'a', url, kind: 'image' }] });
      expect(json(synced, 422, 'syncConnectedSource').errors).toEqual([{ path: '/media_assets/0/url', ...wrong }]);
    }
    const key = await r.key(['products.read']);
    expect(json(await t.api(key, 'GET', '/media-assets'), 200, 'listMediaAssets').data).toEqual([]);
    json(await r.op('POST', '/media-assets', { url: 'http://img.example.com/1.jpg', kind: 'image' }), 201, 'createMediaAsset');
  });
});

describe('each by id', () => {
  it("answers the list's item; another merchant's id, an unknown one or a location outside the key's is 404; the read scope is needed", async () => {
    const key = await m.key(['products.read']);
    const other = await t.merchant({ locations: 1 });
    const vendor = json(await m.op('POST', '/vendors', { name: 'By id' }), 201, 'createVendor').data;
    const tag = json(await m.op('POST', '/tags', { name: 'by-id' }), 201, 'createTag').data;
    const asset = json(
      await m.op('POST', '/media-assets', { url: 'https://img.example.com/by-id.jpg', kind: 'image', alt: 'A' }),
      201,
      'createMediaAsset',
    ).data;
    const theirs = json(await other.op('POST', '/vendors', { name: 'Theirs' }), 201, 'createVendor').data;
    // The operator's creates point at these GETs (contract §1: a create's Location is its record's GET).
    const created = {
      locations: await m.op('POST', '/locations', { name: 'Located' }),
      vendors: await m.op('POST', '/vendors', { name: 'Located' }),
      tags: await m.op('POST', '/tags', { name: 'located' }),
      'media-assets': await m.op('POST', '/media-assets', { url: 'https://img.example.com/located.jpg', kind: 'image' }),
    };
    for (const [path, res] of Object.entries(created)) {
      const id = (res.json() as { data: { id: string } }).data.id;
      expect(res.headers.location).toBe(`/api/integrations/v1/${path}/${id}`);
      const read = await t.api(await m.key(['products.read', 'orders.read']), 'GET', `/${path}/${id}`);
      expect([read.statusCode, (read.json() as { data: { id: string } }).data.id]).toEqual([200, id]);
    }

    expect(json(await t.api(key, 'GET', `/vendors/${vendor.id}`), 200, 'getVendor').data).toEqual(vendor);
    expect(json(await t.api(key, 'GET', `/tags/${tag.id}`), 200, 'getTag').data).toEqual(tag);
    expect(json(await t.api(key, 'GET', `/media-assets/${asset.id}`), 200, 'getMediaAsset').data).toEqual(asset);
    const listed = json(await t.api(key, 'GET', '/locations'), 200, 'listLocations').data;
    expect(json(await t.api(key, 'GET', `/locations/${m.locations[0]}`), 200, 'getLocation').data).toEqual(listed.find((l) => l.id === m.locations[0]));

    for (const [path, op] of [
      [`/vendors/${theirs.id}`, 'getVendor'],
      [`/vendors/${tag.id}`, 'getVendor'],
      [`/tags/${vendor.id}`, 'getTag'],
      [`/media-assets/00000000-0000-4000-8000-000000000000`, 'getMediaAsset'],
      [`/locations/${other.locations[0]}`, 'getLocation'],
    ] as const) {
      expect(json(await t.api(key, 'GET', path), 404, op).code, path).toBe('not_found');
    }
    // Locations need no scope, but a restricted key sees only its own.
    const restricted = await m.key(['orders.read'], [m.locations[1]]);
    expect(json(await t.api(restricted, 'GET', `/locations/${m.locations[1]}`), 200, 'getLocation').data.id).toBe(m.locations[1]);
    expect(json(await t.api(restricted, 'GET', `/locations/${m.locations[0]}`), 404, 'getLocation').code).toBe('not_found');
    expect(json(await t.api(restricted, 'GET', `/vendors/${vendor.id}`), 403, 'getVendor').detail).toContain('products.read');
  });
});
