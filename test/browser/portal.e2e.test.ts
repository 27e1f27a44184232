// The portal in a real browser (Debian's Chromium driven by playwright-core): sign in, create a
// location-restricted Warehouse key and use it, add a webhook endpoint pointed at a local
// receiver, watch an order's delivery arrive in the log, resend it. Screenshots of every page at
// laptop and phone widths go to test-results/screenshots/.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorker, type Worker } from '../../src/events/worker.ts';
import { json, startTestApp, type TestApp, type TestMerchant } from '../helpers.ts';
import { startReceiver, type Receiver } from '../receiver.ts';

const CHROMIUM = '/usr/bin/chromium';
const SHOTS = path.resolve('test-results/screenshots');
const FLAGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

let t: TestApp;
let m: TestMerchant;
let base: string;
let worker: Worker;
let receiver: Receiver;
let browser: BrowserContext;
let page: Page;
let variantId: string;

async function shot(name: string) {
  await page.setViewportSize({ width: 1280, height: 860 });
  await page.screenshot({ path: path.join(SHOTS, `${name}-desktop.png`), fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: path.join(SHOTS, `${name}-phone.png`), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 860 });
}

async function order(locationId: string) {
  return json(await m.op('POST', '/orders', { fulfillment_location_id: locationId, customer: { name: 'Ada Lovelace', email: 'ada@example.com' }, line_items: [{ variant_id: variantId, quantity: 1 }] }), 201).data;
}

describe('portal in a browser', () => {
  beforeAll(async () => {
    // Never skip silently: a missing browser is a failure (scripts/test.ts installs it).
    if (!fs.existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
    fs.mkdirSync(SHOTS, { recursive: true });
    t = await startTestApp({ workerPollMs: 100 });
    m = await t.merchant({ locations: 2 });
    json(await m.op('POST', '/users', { email: 'ops@acme.test', password: 'correct horse battery' }), 201);
    // Through connected sync, so the merchant starts without API keys (the portal's empty state).
    const sync = json(await m.op('POST', '/connected-sync', { source_name: 'shop', products: [{ external_id: 'p1', title: 'Trail Mug', variants: [{ external_id: 'v1', sku: 'MUG', price: 12, inventory_policy: 'continue' }] }] }), 200).data;
    const product = await t.database.db.selectFrom('variants').select('id').where('product_id', '=', sync.products.ids.p1).executeTakeFirstOrThrow();
    variantId = product.id;
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    worker = startWorker(t.database.db, t.config, pino({ level: 'silent' }));
    receiver = await startReceiver('/warehouse/webhooks');
    browser = await chromium.launchPersistentContext(fs.mkdtempSync(path.join(os.tmpdir(), 'mia-chromium-')), { executablePath: CHROMIUM, headless: true, args: FLAGS });
    page = browser.pages()[0] ?? (await browser.newPage());
    page.setDefaultTimeout(15_000);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await worker?.stop();
    await receiver?.close();
    await t?.close();
  });

  it('signs in, creates a Warehouse key for one location and uses it', async () => {
    await page.goto(`${base}/portal`);
    await expect.poll(() => page.getByLabel('Email').isVisible()).toBe(true);
    await shot('01-sign-in');
    await page.getByLabel('Email').fill('ops@acme.test');
    await page.getByLabel('Password').fill('wrong password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').getByText('The email or password is not correct.').waitFor();
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'API keys', exact: true }).waitFor();
    await page.getByText('No API keys yet').waitFor();
    await shot('02-keys-empty');

    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByRole('button', { name: 'Create key' }).last().click(); // empty form: errors next to fields
    await page.getByText('Give the key a label').waitFor();
    await page.getByText('Choose at least one scope.').waitFor();
    await shot('03-key-form-errors');
    await page.getByLabel('Label').fill('Acme 3PL – Location 1');
    await page.getByRole('button', { name: 'Warehouse preset' }).click();
    await page.getByRole('radio', { name: 'Specific locations' }).click();
    await page.getByRole('checkbox', { name: 'Location 1' }).check();
    await shot('04-key-form');
    await page.getByRole('button', { name: 'Create key' }).last().click();
    const secret = (await page.getByTestId('new-secret').textContent())!;
    expect(secret).toMatch(/^mia_sk_/);
    await page.getByText('It is shown only once').waitFor();
    await shot('05-key-created');

    const mine = await order(m.locations[0]);
    await order(m.locations[1]);
    const orders = json(await t.api(secret, 'GET', '/orders'), 200).data;
    expect(orders.map((o: { id: string }) => o.id)).toEqual([mine.id]);
    await page.getByRole('button', { name: 'I have stored it — close' }).click();
    await page.getByRole('cell', { name: 'Acme 3PL – Location 1' }).waitFor();
    await shot('06-keys-list');
  }, 60_000);

  it('adds a webhook endpoint, sees an order delivered in the log, and resends it', async () => {
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByText('No endpoints yet').waitFor();
    await shot('07-webhooks-empty');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await page.getByLabel('URL').fill(receiver.url);
    await page.getByRole('button', { name: 'Warehouse preset' }).click();
    await shot('08-endpoint-form');
    await page.getByRole('button', { name: 'Add endpoint' }).last().click();
    await page.getByRole('heading', { name: 'Delivery log' }).waitFor();
    await page.getByText('No deliveries yet').waitFor();
    await page.getByRole('button', { name: 'Reveal' }).click();
    await expect.poll(async () => page.getByTestId('signing-secret').textContent()).toMatch(/^whsec_/);
    await shot('09-endpoint-empty-log');

    const placed = await order(m.locations[0]);
    const created = () => receiver.received.filter((r) => r.body.type === 'order.created');
    await expect.poll(() => created().length, { timeout: 10_000 }).toBe(1);
    expect(created()[0].body.data.object.id).toBe(placed.id);
    const row = page.getByRole('row').filter({ hasText: 'order.created' });
    await row.getByText('delivered').waitFor();
    await shot('10-delivery-log');

    await row.getByRole('button', { name: 'Resend' }).click();
    await page.getByText('Delivery queued again.').waitFor();
    await expect.poll(() => created().length, { timeout: 10_000 }).toBe(2);
    expect(created()[1].body.id).toBe(created()[0].body.id);
    await expect.poll(async () => page.getByRole('row').filter({ hasText: 'order.created' }).count(), { timeout: 10_000 }).toBe(2);
    await shot('11-delivery-resent');

    await page.getByRole('link', { name: '← Webhook endpoints' }).click();
    await page.getByRole('cell', { name: receiver.url }).waitFor();
    await shot('12-webhooks-list');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
  }, 60_000);
});
