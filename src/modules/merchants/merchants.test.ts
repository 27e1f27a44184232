// Merchants and their portal users through the operator API (create, currency, one user per email);
// what portal users do once signed in: test/portal.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, json, startMerchantApp, type TestApp, type TestMerchant } from '../../../test/helpers.ts';
import { fingerprint } from '../../../test/fingerprint.ts';

let t: TestApp;
let m: TestMerchant;

beforeAll(async () => {
  ({ t, m } = await startMerchantApp());
});
afterAll(() => t?.close());

describe('operator API', () => {
  it('rejects a missing or wrong token', async () => {
    expectProblem(await t.app.inject({ method: 'POST', url: '/api/platform/v1/merchants', payload: { name: 'x' } }), 401, 'unauthorized');
    expectProblem(
      await t.app.inject({ method: 'POST', url: '/api/platform/v1/merchants', headers: { authorization: 'Bearer wrong' }, payload: { name: 'x' } }),
      401,
      'unauthorized',
    );
  });

  it('creates merchants with their currency and answers 404 for an unknown merchant', async () => {
    const res = json(await t.op('POST', '/merchants', { name: 'Acme', currency: 'eur' }), 201, 'createMerchant');
    expect(res.data).toEqual({ id: expect.any(String), name: 'Acme', currency: 'EUR' });
    expectProblem(await t.op('POST', '/merchants/00000000-0000-4000-8000-000000000000/tags', { name: 'x' }), 404, 'not_found');
  });

  it('refuses a currency that is no ISO 4217 code (any three letters were taken, and orders carried "ZZZ")', async () => {
    for (const currency of ['ZZZ', 'xxx', 'ABC']) {
      expect(json(await t.op('POST', '/merchants', { name: 'Nowhere', currency }), 422, 'createMerchant').errors).toEqual([
        { path: '/currency', message: 'is not an ISO 4217 currency code (USD, EUR, GBP, JPY, …)', code: 'invalid_value' },
      ]);
    }
    expect(await t.database.db.selectFrom('merchants').select('id').where('name', '=', 'Nowhere').execute()).toEqual([]);
    expect(json(await t.op('POST', '/merchants', { name: 'Tokyo', currency: 'jpy' }), 201, 'createMerchant').data.currency).toBe('JPY');
  });

  it('refuses names of only white space for merchants, locations, vendors and tags, and creates nothing', async () => {
    const blank = [{ path: '/name', message: 'must not be blank', code: 'invalid_format' }];
    const before = await fingerprint(t.database.db);
    expect(json(await t.op('POST', '/merchants', { name: ' \t ' }), 422, 'createMerchant').errors).toEqual(blank);
    expect(json(await m.op('POST', '/locations', { name: '   ' }), 422, 'createLocation').errors).toEqual(blank);
    expect(json(await m.op('POST', '/vendors', { name: '   ' }), 422, 'createVendor').errors).toEqual(blank);
    expect(json(await m.op('POST', '/tags', { name: '   ' }), 422, 'createTag').errors).toEqual(blank);
    expect(await fingerprint(t.database.db)).toEqual(before);
    expect(json(await m.op('POST', '/locations', { name: ' Dock 2 ' }), 201, 'createLocation').data.name).toBe(' Dock 2 ');
  });

  it('creates portal users once per email', async () => {
    const res = json(await m.op('POST', '/users', { email: 'Ops@Example.com', password: 'correct horse' }), 201, 'createPortalUser');
    expect(res.data).toEqual({ id: expect.any(String), email: 'ops@example.com' });
    const again = expectProblem(await m.op('POST', '/users', { email: 'ops@example.com', password: 'correct horse' }), 422, 'validation_failed');
    expect(again.errors?.[0].path).toBe('/email');
  });
});
