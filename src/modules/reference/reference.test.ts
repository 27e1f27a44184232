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
