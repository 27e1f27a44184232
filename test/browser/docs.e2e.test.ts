// /docs in a real browser, opened through a host name that is not localhost (docs.test, mapped to
// 127.0.0.1 inside Chromium): such an origin is not "potentially trustworthy", so a page whose CSP
// carried upgrade-insecure-requests would fetch its assets over https and stay blank. Every
// request stays on loopback: all other host names fail to resolve.
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { BrowserContext, Page } from 'playwright-core';
import { launchChromium, requireChromium, SHOTS } from './chromium.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers.ts';

let t: TestApp;
let origin: string;
let browser: BrowserContext;
let page: Page;
const requested: string[] = [];
const problems: string[] = [];

describe('API reference in a browser', () => {
  beforeAll(async () => {
    requireChromium();
    t = await startTestApp();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    origin = `http://docs.test:${(t.app.server.address() as AddressInfo).port}`;
    ({ browser, page } = await launchChromium('MAP docs.test 127.0.0.1, MAP * ~NOTFOUND'));
    page.setDefaultTimeout(20_000);
    page.on('request', (r) => requested.push(r.url()));
    page.on('console', (msg) => msg.type() === 'error' && problems.push(msg.text()));
    page.on('pageerror', (err) => problems.push(String(err)));
    page.on('response', (r) => r.status() >= 400 && problems.push(`${r.status()} ${r.url()}`));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('renders operations, enums, error codes and webhooks over plain http on a non-localhost name', async () => {
    await page.setViewportSize({ width: 1280, height: 860 });
    const res = await page.goto(`${origin}/docs`);
    expect(res?.status()).toBe(200);
    expect(res?.headers()['content-security-policy']).not.toContain('upgrade-insecure-requests');
    await page.locator('h2', { hasText: 'Attach or replace tracking' }).first().waitFor();

    const text = await page.locator('#redoc').innerText();
    for (const operation of ['List orders', 'Get an order', 'Create a fulfillment', 'Apply inventory adjustments', 'List inventory rows'])
      expect(text).toContain(operation);
    // The webhooks section: every event type is an entry of the menu.
    for (const event of ['order.created', 'fulfillment.updated', 'inventory.updated', 'ping'])
      await expect(page.locator('[role="menuitem"]', { hasText: event }).count()).resolves.toBeGreaterThan(0);
    // The raw document is linked, and every request stayed on this origin.
    await expect(page.locator('a[href="/api/integrations/v1/openapi.json"]').count()).resolves.toBeGreaterThan(0);
    expect(requested.filter((u) => !u.startsWith(origin) && !u.startsWith('blob:') && !u.startsWith('data:'))).toEqual([]);

    // An operation's enums (a query filter's values) and its error codes.
    const listOrders = page.locator('[id="tag/Orders/operation/listOrders"]');
    await listOrders.scrollIntoViewIfNeeded();
    expect(await listOrders.innerText()).toMatch(/"open"\s*"closed"\s*"cancelled"/);
    const adjust = page.locator('[id="tag/Inventory/operation/adjustInventory"]');
    await adjust.scrollIntoViewIfNeeded();
    expect(await adjust.innerText()).toContain('idempotency_in_progress');
    await page.screenshot({ path: path.join(SHOTS, 'docs-desktop.png') });
    expect(problems.filter((p) => !/Content Security Policy|ERR_NAME_NOT_RESOLVED/.test(p))).toEqual([]);
  });

  it('fits a phone screen', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.locator('[id="tag/Fulfillments/operation/createFulfillment"]').scrollIntoViewIfNeeded();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await page.screenshot({ path: path.join(SHOTS, 'docs-phone.png') });
  });
});
