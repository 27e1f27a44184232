// SSRF: every spelling of a non-public address is refused when an endpoint URL is saved (operator
// and portal, create and PATCH), and the worker never connects to one even when the row bypasses
// the save check: loopback listeners count connections and must see none. Only loopback is ever
// connected to here; forms that would leave the machine are proven on save only.
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPublicAddress } from '../src/events/address-policy.ts';
import { createTransport } from '../src/events/transport.ts';
import { startWorker } from '../src/events/worker.ts';
import { json, portalJson, problem, startTestApp, type TestApp, type TestMerchant } from './helpers.ts';
import { portalUser } from './fixtures.ts';

// Hosts (as written in a URL) that must never receive a webhook.
const REFUSED_HOSTS = [
  // IPv4-mapped IPv6, in several spellings
  '[::ffff:127.0.0.1]',
  '[0:0:0:0:0:ffff:7f00:1]',
  '[::ffff:7f00:1]',
  '[::ffff:169.254.169.254]',
  '[::ffff:a9fe:a9fe]',
  '[::ffff:10.0.0.1]',
  '[::ffff:192.168.0.1]',
  // IPv4-compatible IPv6 (deprecated) embedding loopback
  '[::127.0.0.1]',
  // NAT64 (RFC 6052 well-known and RFC 8215 local-use) embedding loopback, private and metadata addresses
  '[64:ff9b::7f00:1]',
  '[64:ff9b::a00:1]',
  '[64:ff9b::a9fe:a9fe]',
  '[64:ff9b:1::a00:1]',
  // 6to4 and Teredo embedding private IPv4
  '[2002:a00:1::]',
  '[2002:7f00:1::1]',
  '[2002:c0a8:1::1]',
  '[2001:0:4136:e378:8000:63bf:f5ff:fffe]',
  // IPv6 loopback, unspecified, site-local, unique-local, link-local, multicast, discard, documentation
  '[::1]',
  '[::]',
  '[fec0::1]',
  '[fc00::1]',
  '[fd12:3456:789a::1]',
  '[fe80::1]',
  '[febf::1]',
  '[ff02::1]',
  '[ff05::2]',
  '[100::1]',
  '[2001:db8::1]',
  // IPv4 loopback in every spelling URL parsing accepts
  '127.0.0.1',
  '127.1',
  '2130706433',
  '0x7f000001',
  '0177.0.0.1',
  '0x7f.1',
  '127.0.0.1.',
  '127.255.255.254',
  // IPv4 unspecified
  '0.0.0.0',
  '0',
  // RFC 1918, CGNAT, link-local (metadata), multicast, broadcast, reserved, benchmarking
  '10.0.0.1',
  '10.255.255.255',
  '172.16.0.1',
  '172.31.255.254',
  '192.168.1.1',
  '100.64.0.1',
  '100.127.255.254',
  '169.254.169.254',
  '169.254.0.1',
  '224.0.0.1',
  '239.255.255.250',
  '255.255.255.255',
  '240.0.0.1',
  '192.0.0.1',
  '198.18.0.1',
  // names that always mean this host or a private network
  'localhost',
  'LOCALHOST.',
  'x.localhost',
  'metadata.google.internal',
  'printer.local',
];
const ACCEPTED = ['https://hooks.example.com/x', 'https://8.8.8.8/x', 'https://[2606:4700:4700::1111]/x', 'https://172.32.0.1/x', 'https://100.128.0.1/x'];

describe('SSRF: refused on save', () => {
  let strict: TestApp;
  let m: TestMerchant;
  let portal: { cookie: string; csrf: string };

  beforeAll(async () => {
    strict = await startTestApp({ webhookAllowPrivateUrls: false });
    m = await strict.merchant({ locations: 1 });
    portal = await portalUser(strict, m, 'ssrf@acme.test', '10.7.0.1');
  });
  afterAll(() => strict?.close());

  const portalCall = (method: string, url: string, payload: unknown) =>
    strict.app.inject({
      method: method as never,
      url: `/portal/api${url}`,
      headers: { cookie: portal.cookie, 'x-csrf-token': portal.csrf },
      payload: payload as never,
    });

  it(`refuses ${REFUSED_HOSTS.length} non-public host forms with 422 naming /url on create and PATCH, operator and portal`, async () => {
    const ep = json(await m.op('POST', '/webhook-endpoints', { url: ACCEPTED[0], events: ['order.created'] }), 201, 'createWebhookEndpoint').data;
    const portalEp = portalJson(
      await portalCall('POST', '/webhook-endpoints', { url: ACCEPTED[0], events: ['order.created'] }),
      201,
      'POST /portal/api/webhook-endpoints',
    ).data;
    const refused: string[] = [];
    for (const host of REFUSED_HOSTS) {
      const url = `https://${host}:4150/h`;
      const answers = [
        await m.op('POST', '/webhook-endpoints', { url, events: ['order.created'] }),
        await m.op('PATCH', `/webhook-endpoints/${ep.id}`, { url }),
        await portalCall('POST', '/webhook-endpoints', { url, events: ['order.created'] }),
        await portalCall('PATCH', `/webhook-endpoints/${portalEp.id}`, { url }),
      ];
      for (const res of answers) {
        expect(res.statusCode, `${url}: ${res.body}`).toBe(422);
        expect(problem(res, 422).code).toBe('validation_failed');
        expect(problem(res, 422).errors, url).toEqual([{ path: '/url', code: 'forbidden_address', message: expect.any(String) }]);
      }
      refused.push(host);
    }
    expect(refused).toHaveLength(REFUSED_HOSTS.length);
    // Nothing changed: both endpoints still point where they did, and no other endpoint was made.
    const endpoints = json(await m.op('GET', '/webhook-endpoints'), 200, 'listWebhookEndpoints').data;
    expect(endpoints.map((e: { url: string }) => e.url)).toEqual([ACCEPTED[0], ACCEPTED[0]]);
  });

  it('accepts public hosts (nothing is connected to on save)', async () => {
    for (const url of ACCEPTED)
      expect(json(await m.op('POST', '/webhook-endpoints', { url, events: ['order.created'] }), 201, 'createWebhookEndpoint').data.url).toBe(url);
    expect(
      json(await m.op('POST', '/webhook-endpoints', { url: 'http://hooks.example.com/x', events: ['order.created'] }), 422, 'createWebhookEndpoint').errors,
    ).toEqual([{ path: '/url', code: 'invalid_format', message: 'must use https' }]);
  });

  it('classifies DNS answers and socket addresses with the same rule', () => {
    for (const a of [
      '127.0.0.1',
      '::1',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '10.1.2.3',
      '169.254.169.254',
      'fe80::1%eth0',
      '64:ff9b::7f00:1',
      '::',
      '',
      'not-an-ip',
    ]) {
      expect(isPublicAddress(a), a).toBe(false);
    }
    for (const a of ['8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8']) expect(isPublicAddress(a), a).toBe(true);
  });
});

describe('SSRF: refused at delivery', () => {
  let t: TestApp;
  const connections = { v4: 0, v6: 0 };
  const listeners: net.Server[] = [];
  let port = 0;

  async function listen(host: string, p: number, count: () => void): Promise<number> {
    const server = net.createServer((socket) => {
      count();
      socket.destroy();
    });
    listeners.push(server);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(p, host, () => resolve());
    });
    return (server.address() as AddressInfo).port;
  }

  beforeAll(async () => {
    t = await startTestApp({ webhookAllowPrivateUrls: false, webhookRetrySchedule: [], webhookTimeoutMs: 2000 });
    port = await listen('127.0.0.1', 0, () => connections.v4++);
    await listen('::1', port, () => connections.v6++);
  });
  afterAll(async () => {
    for (const s of listeners) await new Promise((r) => s.close(r));
    await t?.close();
  });

  it('the worker makes no connection to loopback spellings or names resolving to loopback, even when the row bypassed the save check', async () => {
    const m = await t.merchant({ locations: 1 });
    // Only forms that reach this machine: were the check to fail, the listeners would count it.
    const urls = [
      `https://[::ffff:127.0.0.1]:${port}/h`,
      `https://[0:0:0:0:0:ffff:7f00:1]:${port}/h`,
      `https://[::1]:${port}/h`,
      `https://127.0.0.1:${port}/h`,
      `https://127.1:${port}/h`,
      `https://2130706433:${port}/h`,
      `https://0x7f000001:${port}/h`,
      `https://0177.0.0.1:${port}/h`,
      `https://127.0.0.1.:${port}/h`,
      `https://localhost:${port}/h`,
      `http://127.0.0.1:${port}/h`,
    ];
    for (const url of urls) {
      await t.database.db
        .insertInto('webhook_endpoints')
        .values({ merchant_id: m.id, url, events: ['product.created'], signing_secret: 'whsec_test' })
        .execute();
    }
    const key = await m.key(['products.write']);
    json(await t.api(key, 'POST', '/products', { title: 'Bait' }), 201, 'createProduct');
    const worker = startWorker(t.database.db, t.config, pino({ level: 'silent' }), { autoStart: false });
    expect(await worker.tick()).toBe(urls.length);
    await worker.stop();

    const rows = await t.database.db
      .selectFrom('webhook_attempts as a')
      .innerJoin('webhook_deliveries as d', 'd.id', 'a.delivery_id')
      .innerJoin('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
      .select(['e.url', 'a.status_code', 'a.error', 'd.status'])
      .where('d.merchant_id', '=', m.id)
      .execute();
    expect(rows).toHaveLength(urls.length);
    for (const r of rows) {
      expect(r.status_code, r.url).toBeNull();
      expect(r.error, r.url).toMatch(/^refused: /);
      expect(r.status).toBe('failed');
    }
    expect(rows.find((r) => r.url.includes('localhost'))!.error).toBe('refused: localhost resolves to a private address');
    // The private address a name resolves to is never told (it would map the internal network).
    for (const r of rows) if (!/^https?:\/\/[\d[]/.test(r.url)) expect(r.error, r.url).not.toMatch(/127\.|::1|0x|0177/);
    expect(connections).toEqual({ v4: 0, v6: 0 });

    // The listeners do count: the same addresses are reached once private URLs are allowed.
    const open = createTransport({ timeoutMs: 2000, allowPrivate: true });
    await open.post(`http://127.0.0.1:${port}/h`, {}, '{}');
    await open.post(`http://[::1]:${port}/h`, {}, '{}');
    await open.close();
    expect(connections).toEqual({ v4: 1, v6: 1 });
  });
});
