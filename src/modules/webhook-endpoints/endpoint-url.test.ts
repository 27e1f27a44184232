// An endpoint URL is saved only when the URL stored (and echoed) is the URL delivery connects to,
// and when it can be delivered to at all: operator API and portal, create and PATCH, with private
// addresses refused as in production. Accepted URLs come back exactly as sent.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, portalJson, problem, startTestApp, type TestApp, type TestMerchant } from '../../../test/helpers.ts';
import { fingerprint } from '../../../test/fingerprint.ts';
import { portalCall, portalUser, type PortalSession } from '../../../test/fixtures.ts';

let t: TestApp;
let m: TestMerchant;
let s: PortalSession;

beforeAll(async () => {
  t = await startTestApp({ webhookAllowPrivateUrls: false });
  m = await t.merchant({ locations: 1 });
  s = await portalUser(t, m, 'urls@endpoints.test');
});
afterAll(() => t?.close());

const call = (method: string, url: string, payload?: unknown) => portalCall(t, s, method, url, payload);
const label = (length: number) => 'a'.repeat(length);
const malformed = (message: string) => [{ path: '/url', message, code: 'invalid_format' }];

/** Each URL with the exact `errors` of its 422. */
const REFUSED: [string, { path: string; message: string; code: string }[]][] = [
  ['https://example.com\t/', malformed('must not contain whitespace or control characters')],
  ['https://example.com/ foo', malformed('must not contain whitespace or control characters')],
  ['https://example.com/\nx', malformed('must not contain whitespace or control characters')],
  ['https://example.com/\u0085', malformed('must not contain whitespace or control characters')],
  ['https://example.com\\hooks', malformed('must not contain a backslash (it is read as "/")')],
  ['https://a\u00adb.com/', malformed('must spell its host as it is read: "ab.com"')],
  ['https://exa\u200bmple.com/', malformed('must spell its host as it is read: "example.com"')],
  ['https://ｅｘａｍｐｌｅ.com/', malformed('must spell its host as it is read: "example.com"')],
  ['https://ex%61mple.com/', malformed('must spell its host as it is read: "example.com"')],
  ['https://0x08080808/', malformed('must spell its host as it is read: "8.8.8.8"')],
  ['https:example.com/hooks', malformed('must spell its host as it is read: "example.com"')],
  ['https://example.com:0/', malformed('must not use port 0')],
  ['https://example.com:000/', malformed('must not use port 0')],
  [
    'https://localhost../',
    [{ path: '/url', message: 'must not point at a private, loopback, link-local or otherwise non-public address', code: 'forbidden_address' }],
  ],
  [
    'https://x.LOCALHOST.../h',
    [{ path: '/url', message: 'must not point at a private, loopback, link-local or otherwise non-public address', code: 'forbidden_address' }],
  ],
  ['https://example.com../', malformed('must not have an empty label in its host (two dots in a row, or more than one at the end)')],
  ['https://hooks..example.com/', malformed('must not have an empty label in its host (two dots in a row, or more than one at the end)')],
  [`https://${label(64)}.example.com/`, malformed('must not have a label longer than 63 characters in its host')],
  [`https://${[label(63), label(63), label(63), label(63)].join('.')}/`, malformed('must not have a host longer than 253 characters')],
];

/** Ordinary URLs, echoed byte for byte. */
const ACCEPTED = [
  'https://example.com',
  'https://hooks.example.com/webhooks/orders',
  'https://hooks.example.com:8443/in',
  'https://hooks.example.com/in?token=abc&v=2',
  'https://bücher.example/hooks',
  'https://Hooks.Example.com/In',
  'https://hooks.example.com./in',
  `https://${[label(63), label(63), label(63), label(61)].join('.')}/`,
];

describe('endpoint URLs on save', () => {
  it('refuses URLs whose stored and connected forms differ, port 0, and undeliverable hosts, with 422 naming /url, operator and portal, create and PATCH', async () => {
    const opEndpoint = json(
      await m.op('POST', '/webhook-endpoints', { url: 'https://hooks.example.com/op', events: ['order.created'] }),
      201,
      'createWebhookEndpoint',
    ).data;
    const portalEndpoint = portalJson(
      await call('POST', '/webhook-endpoints', { url: 'https://hooks.example.com/portal', events: ['order.created'] }),
      201,
      'POST /portal/api/webhook-endpoints',
    ).data;
    const before = await fingerprint(t.database.db);
    for (const [url, errors] of REFUSED) {
      const answers = [
        await m.op('POST', '/webhook-endpoints', { url, events: ['order.created'] }),
        await m.op('PATCH', `/webhook-endpoints/${opEndpoint.id}`, { url }),
        await call('POST', '/webhook-endpoints', { url, events: ['order.created'] }),
        await call('PATCH', `/webhook-endpoints/${portalEndpoint.id}`, { url }),
      ];
      for (const res of answers) {
        expect(problem(res, 422).code, JSON.stringify(url)).toBe('validation_failed');
        expect(problem(res, 422).errors, JSON.stringify(url)).toEqual(errors);
      }
    }
    expect(await fingerprint(t.database.db)).toEqual(before);
  });

  it('accepts ordinary URLs and echoes them exactly as sent, operator and portal, create and PATCH', async () => {
    for (const [i, url] of ACCEPTED.entries()) {
      const next = ACCEPTED[(i + 1) % ACCEPTED.length];
      const created = json(await m.op('POST', '/webhook-endpoints', { url, events: ['order.created'] }), 201, 'createWebhookEndpoint').data;
      expect(created.url).toBe(url);
      expect(json(await m.op('GET', `/webhook-endpoints/${created.id}`), 200, 'getWebhookEndpoint').data.url).toBe(url);
      const patched = json(await m.op('PATCH', `/webhook-endpoints/${created.id}`, { url: next }), 200, 'updateWebhookEndpoint').data;
      expect(patched.url).toBe(next);
      const inPortal = portalJson(await call('POST', '/webhook-endpoints', { url, events: ['order.created'] }), 201, 'POST /portal/api/webhook-endpoints').data;
      expect(inPortal.url).toBe(url);
      const portalPatched = portalJson(
        await call('PATCH', `/webhook-endpoints/${inPortal.id}`, { url: next }),
        200,
        'PATCH /portal/api/webhook-endpoints/:id',
      ).data;
      expect(portalPatched.url).toBe(next);
    }
  });
});
