// The portal in a real browser (Debian's Chromium driven by playwright-core), opened over a
// made-up host name mapped to loopback (http://portal.test:<port>): a non-secure context, so the
// copy buttons must work without navigator.clipboard, while all traffic stays on 127.0.0.1.
// Covers keys, endpoints (create, edit, delete), deliveries that fail then succeed, a DNS failure,
// resend, the request log found by X-Request-Id, events and the overview, a session that ends under
// an open page (and under a form with typing in it), at 1280 px and 390 px, with no console errors
// on any page. Screenshots of every page go to test-results/screenshots/.
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { launchChromium, requireChromium, SHOTS } from './chromium.ts';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startWorker, type Worker } from '../../src/events/worker.ts';
import { json, startTestApp, type TestApp, type TestMerchant } from '../helpers.ts';
import { startReceiver, type Receiver } from '../receiver.ts';
import { syncConnectedVariant } from '../fixtures.ts';

const HOST = 'portal.test';

let t: TestApp;
let m: TestMerchant;
let base: string;
let loopback: string;
let worker: Worker;
let receiver: Receiver;
let browser: BrowserContext;
let page: Page;
let variantId: string;
let keySecret: string;
let endpointId: string;
/** Console errors and uncaught exceptions since the last check. */
let consoleErrors: string[] = [];

async function shot(name: string) {
  await page.evaluate(() => scrollTo(0, 0)); // the sticky header stays at the top of a full-page shot
  await page.setViewportSize({ width: 1280, height: 860 });
  await page.screenshot({ path: path.join(SHOTS, `${name}-desktop.png`), fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: path.join(SHOTS, `${name}-phone.png`), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 860 });
}

/** A step that makes the server answer an error on purpose: Chromium logs exactly that failed load. */
function expectOnlyFailedLoads(...statuses: number[]) {
  expect(consoleErrors.map((e) => /status of (\d{3})/.exec(e)?.[1] ?? e)).toEqual(statuses.map(String));
  consoleErrors = [];
}

async function order(locationId: string) {
  return json(
    await m.op('POST', '/orders', {
      fulfillment_location_id: locationId,
      customer: { name: 'Ada Lovelace', email: 'ada@example.com' },
      line_items: [{ variant_id: variantId, quantity: 1 }],
    }),
    201,
    'createOrder',
  ).data;
}

/**
 * A condition that holds within a deadline (Vitest's own expect.poll gives up after 1 s, too short
 * for a page that is still fetching on a loaded machine). Never a fixed sleep: it returns as soon
 * as the condition holds.
 */
const until = <T>(read: () => T | Promise<T>, timeout = 15_000) => expect.poll(read, { timeout, interval: 100 });

/** The focused element: tag and id, else name, else text. */
const focused = () =>
  page.evaluate(() => {
    const el = document.activeElement;
    return el ? `${el.tagName.toLowerCase()}:${el.id || el.getAttribute('name') || (el.textContent ?? '').trim().slice(0, 40)}` : null;
  });

/** Two frames on: what focusSoon would do a frame after a render (take focus to a message) is done. */
const framesLater = () => page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));

/** The live region an element is in (its role), or null: a focused message in one was read twice. */
const liveRegionOf = (el: Locator) => el.evaluate((e) => e.closest('[role="status"], [role="alert"], [aria-live]')?.getAttribute('role') ?? null);

/** What the checkboxes of a group carry, once per distinct value: ["true scopes-error"] in error, ["null null"] once it clears. */
const invalidMarks = (boxes: Locator) =>
  boxes.evaluateAll((els) => [...new Set(els.map((e) => `${e.getAttribute('aria-invalid')} ${e.getAttribute('aria-describedby')}`))]);

const nav = (name: string) => page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name });

/** Signs in from the sign-in form, as the test's portal user unless told. */
async function signIn(email = 'ops@acme.test', password = 'correct horse battery') {
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

const SESSION_ENDED = 'Your session has ended. Sign in again to go on where you were.';
const UNSAVED = 'Your session ended before this was saved. Check it and save again.';

/** The session ended under a page: every failed load since the last check was a 401 (a page's parallel requests may each find it gone). */
function expectSessionEndLoads() {
  const statuses = consoleErrors.map((e) => /status of (\d{3})/.exec(e)?.[1] ?? e);
  expect([statuses.length > 0, [...new Set(statuses)]]).toEqual([true, ['401']]);
  consoleErrors = [];
}

/** A form's fields as typed and ticked: "name=value" for each text field, "✓ label" for each ticked checkbox or radio. */
const fieldsOf = (form: Locator) =>
  form
    .locator('input')
    .evaluateAll((els) =>
      (els as HTMLInputElement[]).flatMap((e) =>
        e.type === 'checkbox' || e.type === 'radio' ? (e.checked ? [`✓ ${e.closest('label')?.textContent?.trim()}`] : []) : [`${e.name}=${e.value}`],
      ),
    );

/** Opens a section while it is still empty (screenshot of the empty state), then its create form. */
async function openEmptyForm(section: string, emptyText: string, shotName: string, createButton: string) {
  await nav(section).click();
  await page.getByText(emptyText).waitFor();
  await shot(shotName);
  await page.getByRole('button', { name: createButton }).click();
}

describe('portal in a browser', () => {
  beforeAll(async () => {
    requireChromium();
    t = await startTestApp({ workerPollMs: 100, webhookRetrySchedule: [1] });
    m = await t.merchant({ locations: 2 });
    json(await m.op('POST', '/users', { email: 'ops@acme.test', password: 'correct horse battery' }), 201, 'createPortalUser');
    // Through connected sync, so the merchant starts without API keys (the portal's empty state).
    variantId = await syncConnectedVariant(t, m, 'Trail Mug', { sku: 'MUG', price: 12, inventory_policy: 'continue' });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const port = (t.app.server.address() as AddressInfo).port;
    base = `http://${HOST}:${port}`;
    loopback = `http://127.0.0.1:${port}`;
    worker = startWorker(t.database.db, t.config, pino({ level: 'silent' }));
    receiver = await startReceiver('/warehouse/webhooks');
    ({ browser, page } = await launchChromium(`MAP ${HOST} 127.0.0.1`, { width: 1280, height: 860 }));
    page.setDefaultTimeout(15_000);
    page.on('console', (msg) => {
      if (msg.type() === 'error') consoleErrors.push(msg.text());
    });
    page.on('pageerror', (err) => consoleErrors.push(`uncaught: ${err.message}`));
  }, 120_000);

  afterEach(() => {
    // Every page the test visited loaded and worked without a console error.
    expect(consoleErrors).toEqual([]);
  });

  afterAll(async () => {
    await browser?.close();
    await worker?.stop();
    await receiver?.close();
    await t?.close();
  });

  it('signs in over a non-localhost http address (not a secure context), with human messages', async () => {
    await page.goto(`${base}/portal`);
    await page.getByLabel('Email').waitFor();
    expect(await page.evaluate(() => [window.isSecureContext, location.host, typeof navigator.clipboard])).toEqual([false, base.slice(7), 'undefined']);
    await shot('01-sign-in');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('Enter your email address.').waitFor();
    expect(await page.getByLabel('Email').getAttribute('aria-invalid')).toBe('true');
    await page.getByLabel('Email').fill('ops@acme.test');
    await page.getByLabel('Password').fill('wrong password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').getByText('The email or password is not correct.').waitFor();
    // Announced by its live region, so not focused as well (it was, and read twice): focus stays on the button.
    await framesLater();
    expect(await focused()).toBe('button:Sign in');
    expectOnlyFailedLoads(401);
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await page.getByText('No active keys.').waitFor();
    await shot('02-overview-empty');
  }, 60_000);

  it('creates a Warehouse key with scope help, copies its secret with feedback and uses it', async () => {
    await openEmptyForm('API keys', 'No API keys yet', '03-keys-empty', 'Create key');
    await page.getByRole('button', { name: 'Create key' }).last().click(); // empty form: errors next to fields
    await page.getByText('Give the key a label').waitFor();
    await page.getByText('Choose at least one scope.').waitFor();
    // Each scope checkbox says it is in error and why, as a text field does (only the group said it).
    const scopeBoxes = page.locator('input[name="scope"]');
    expect(await invalidMarks(scopeBoxes)).toEqual(['true scopes-error']);
    expect(await page.getByRole('group', { name: /^Scopes/ }).getAttribute('aria-describedby')).toBe('scopes-help');
    await page.getByText('Read orders, their line items and shipping addresses.').waitFor();
    await until(() => page.locator('#scopes-help').textContent()).toBe(
      'Give each system only what it needs. fulfillments.write includes fulfillments.create and fulfillments.tracking.write. inventory.write includes inventory.adjust. ',
    );
    await shot('04-key-form-errors');
    // A label over the server's limit: the server's 422 is shown as a sentence, announced.
    await page.getByLabel('Label').fill('x'.repeat(101));
    await page.getByRole('checkbox', { name: /^orders\.read/ }).check();
    expect(await invalidMarks(scopeBoxes)).toEqual(['null null']);
    await page.getByRole('button', { name: 'Create key' }).last().click();
    await until(() => page.locator('#label-error').textContent()).toBe('Label is too long.');
    // Read out as the field's description: focus moves to the first field with a message, whose
    // name stays "Label" (the message inside the label had become part of its name).
    await until(() => page.evaluate(() => document.activeElement?.getAttribute('name'))).toBe('label');
    expect(await page.getByRole('textbox', { name: 'Label', exact: true }).getAttribute('aria-describedby')).toBe('label-error');
    expectOnlyFailedLoads(422);
    await page.getByRole('checkbox', { name: /^orders\.read/ }).uncheck();
    // Choosing an alias shows the scopes it includes as included.
    await page.getByRole('checkbox', { name: /^fulfillments\.write/ }).check();
    expect(await page.getByRole('checkbox', { name: /^fulfillments\.create/ }).isChecked()).toBe(true);
    expect(await page.getByRole('checkbox', { name: /^fulfillments\.create/ }).isDisabled()).toBe(true);
    await page.getByRole('checkbox', { name: /^fulfillments\.write/ }).uncheck();
    await page.getByLabel('Label').fill('Acme 3PL – Location 1');
    await page.getByRole('button', { name: 'Warehouse preset' }).click();
    await page.getByRole('radio', { name: 'Specific locations' }).click();
    // None ticked: focus on the first location checkbox, which says why (focus went to "All locations").
    await page.getByRole('button', { name: 'Create key' }).last().click();
    const locationBoxes = page.getByRole('group', { name: 'Locations' }).getByRole('checkbox');
    await until(() => invalidMarks(locationBoxes)).toEqual(['true key-locations-error']);
    expect(await page.locator('#key-locations-error').textContent()).toBe('Choose at least one location, or All locations.');
    await until(() => locationBoxes.first().evaluate((e) => e === document.activeElement)).toBe(true);
    await page.getByRole('checkbox', { name: 'Location 1' }).check();
    expect(await invalidMarks(locationBoxes)).toEqual(['null null']);
    await shot('05-key-form');
    await page.getByRole('button', { name: 'Create key' }).last().click();
    keySecret = (await page.getByTestId('new-secret').textContent())!;
    expect(keySecret).toMatch(/^mia_sk_/);

    await page.getByRole('button', { name: 'Copy', exact: true }).click();
    await page.getByText('Copied to the clipboard.').waitFor();
    await page.getByRole('button', { name: 'Copied ✓' }).waitFor();
    expect(await clipboardText()).toBe(keySecret);
    await shot('06-key-created');

    const mine = await order(m.locations[0]);
    await order(m.locations[1]);
    const res = await fetch(`${loopback}/api/integrations/v1/orders`, { headers: { authorization: `Bearer ${keySecret}` } });
    expect(((await res.json()) as { data: { id: string }[] }).data.map((o) => o.id)).toEqual([mine.id]);
    await page.getByRole('button', { name: 'I have stored it — close' }).click();
    await page.getByRole('cell', { name: 'Acme 3PL – Location 1', exact: true }).waitFor();
    await shot('07-keys-list');
  }, 60_000);

  it('finds a failed request by its X-Request-Id in the request log and shows its problem body', async () => {
    const res = await fetch(`${loopback}/api/integrations/v1/orders?status=shipped&limit=500`, { headers: { authorization: `Bearer ${keySecret}` } });
    expect(res.status).toBe(422);
    const requestId = res.headers.get('x-request-id')!;
    const problem = await res.json();
    await nav('Request log').click();
    await page.getByRole('heading', { name: 'Request log' }).waitFor();
    await page.getByRole('cell', { name: 'validation_failed' }).waitFor();
    await shot('08-request-log');
    await page.getByLabel('Find a request by its X-Request-Id').fill('not-an-id');
    await page.getByRole('button', { name: 'Find' }).click();
    await page.getByText('Paste a request id').waitFor();
    await page.getByLabel('Find a request by its X-Request-Id').fill(requestId);
    await page.getByRole('button', { name: 'Find' }).click();
    const detail = page.getByRole('article', { name: 'Request details' });
    await until(() => detail.locator('#detail-request-id').textContent()).toBe(requestId);
    expect(JSON.parse((await detail.getByTestId('problem-body').textContent())!)).toEqual(problem);
    // Stored as sent: the same keys in the same order.
    expect(Object.keys(JSON.parse((await detail.getByTestId('problem-body').textContent())!))).toEqual(Object.keys(problem));
    await until(() => detail.getByText('Acme 3PL – Location 1').count()).toBe(1);
    await shot('09-request-detail');
    await page.getByLabel('Status').selectOption('2xx');
    await until(() => page.locator('table.requests tbody tr').count()).toBe(1);
    expect(await page.locator('table.requests tbody tr').first().textContent()).toContain('GET /api/integrations/v1/orders');
    await shot('10-request-log-filtered');
  }, 60_000);

  it('adds an endpoint; a delivery answered 500 then 200 shows both attempts with codes and excerpts; resend makes a new delivery', async () => {
    await openEmptyForm('Webhooks', 'No endpoints yet', '11-webhooks-empty', 'Add endpoint');
    // Nothing chosen: every event checkbox is invalid and described by the group's message, until one is ticked.
    await page.getByRole('button', { name: 'Add endpoint' }).last().click();
    const eventBoxes = page.locator('input[name="event"]');
    await until(() => invalidMarks(eventBoxes)).toEqual(['true events-error']);
    expect(await page.locator('#events-error').textContent()).toBe('Choose at least one event.');
    await until(focused).toBe('input:url');
    await page.getByLabel('URL').fill('ftp://warehouse.example');
    // Only order events: the receiver's scripted answers then go to the order's delivery.
    await page.getByRole('checkbox', { name: 'order.created' }).check();
    await page.getByRole('checkbox', { name: 'order.cancelled' }).check();
    expect(await invalidMarks(eventBoxes)).toEqual(['null null']);
    await page.getByRole('button', { name: 'Add endpoint' }).last().click();
    await until(() => page.locator('#url-error').textContent()).toBe('URL must be an http(s) URL.');
    expectOnlyFailedLoads(422);
    await page.getByLabel('URL').fill(receiver.url);
    await shot('12-endpoint-form');
    await page.getByRole('button', { name: 'Add endpoint' }).last().click();
    await page.getByRole('heading', { name: 'Delivery log' }).waitFor();
    endpointId = /webhooks\/([0-9a-f-]{36})/.exec(page.url())![1];
    await page.getByText('No deliveries yet').waitFor();

    await page.getByRole('button', { name: 'Reveal' }).click();
    // The masked placeholder starts with whsec_ too: wait for the revealed one (and its Hide button).
    await page.getByRole('button', { name: 'Hide' }).waitFor();
    await until(() => page.getByTestId('signing-secret').textContent()).toMatch(/^whsec_[^•]+$/);
    const signingSecret = (await page.getByTestId('signing-secret').textContent())!;
    await page.getByRole('button', { name: 'Copy', exact: true }).click();
    await page.getByText('Copied to the clipboard.').waitFor();
    expect(await clipboardText()).toBe(signingSecret);
    await shot('13-endpoint-secret-copied');

    receiver.script.push({ status: 500, body: 'warehouse database is down' }, { status: 200, body: 'ok, stored' });
    const placed = await order(m.locations[0]);
    const created = () => receiver.received.filter((r) => r.body?.type === 'order.created');
    await until(() => created().length).toBe(2);
    const row = page.locator('tr[data-delivery]').filter({ hasText: 'order.created' });
    await row.getByText('delivered').waitFor();
    await until(() => row.getByRole('cell', { name: '200' }).count()).toBe(1);
    await shot('14-delivery-log');

    await row.getByRole('link').click();
    await page.getByRole('heading', { name: /^Delivery / }).waitFor();
    const first = page.getByRole('article', { name: 'Attempt 1' });
    const second = page.getByRole('article', { name: 'Attempt 2' });
    await first.getByText('500', { exact: true }).waitFor();
    await first.getByText('warehouse database is down').waitFor();
    await second.getByText('200', { exact: true }).waitFor();
    await second.getByText('ok, stored').waitFor();
    await second.getByText('Request sent (headers and body, signature included)').click();
    const sent = (await second.locator('pre.code').last().textContent())!;
    expect(sent).toContain(`x-service-webhook-signature: ${created()[1].headers['x-service-webhook-signature']}`);
    expect(sent.endsWith(created()[1].raw)).toBe(true);
    expect(JSON.parse(created()[1].raw).data.object.id).toBe(placed.id);
    await shot('15-delivery-detail');
    // Refresh says what it found (it changed the page silently).
    await page.getByRole('button', { name: 'Refresh' }).click();
    await page.getByRole('status').getByText('Refreshed: delivered, 2 attempts.').waitFor();

    await page.getByRole('link', { name: '← Endpoint and delivery log' }).click();
    await page.locator('tr[data-delivery]').filter({ hasText: 'order.created' }).getByRole('button', { name: 'Resend' }).click();
    await page.getByText(/^Delivery queued again as [0-9a-f]{8}\./).waitFor();
    await until(() => created().length).toBe(3);
    expect(created()[2].body.id).toBe(created()[0].body.id);
    await until(() => page.locator('tr[data-delivery]').filter({ hasText: 'order.created' }).count()).toBe(2);
    const rows = page.locator('tr[data-delivery]');
    const originalId = (await rows.nth(1).getAttribute('data-delivery'))!;
    await rows
      .first()
      .getByText(`resend of ${originalId.slice(0, 8)}`)
      .waitFor();
    expect(await rows.first().getAttribute('data-delivery')).not.toBe(originalId);
    await rows.first().getByText('delivered').waitFor();
    await shot('16-delivery-resent');
  }, 90_000);

  it('edits an endpoint; messages clear when the context changes', async () => {
    await page.getByRole('button', { name: 'Edit' }).click();
    const form = page.getByRole('form', { name: 'Edit webhook endpoint' });
    // A refusal that points at one field: fixing that field takes the form's pointer away with it
    // (it stayed, pointing at nothing).
    await form.getByLabel('Description (optional)').fill('d'.repeat(501));
    await form.getByRole('button', { name: 'Save changes' }).click();
    await form.getByText('Check the highlighted fields.').waitFor();
    await until(() => form.locator('#description-error').textContent()).toBe('Description is too long.');
    expectOnlyFailedLoads(422);
    await form.getByLabel('Description (optional)').fill('Acme WMS, Location 1');
    expect(await form.locator('#description-error').textContent()).toBe('');
    await until(() => form.getByText('Check the highlighted fields.').count()).toBe(0);
    await form.getByRole('checkbox', { name: 'order.cancelled' }).uncheck();
    await form.getByRole('checkbox', { name: 'fulfillment.created' }).check();
    await form.getByRole('radio', { name: 'Specific locations' }).click();
    await form.getByRole('checkbox', { name: 'Location 1' }).check();
    await shot('17-endpoint-edit');
    await form.getByRole('button', { name: 'Save changes' }).click();
    // The form and its focused button are gone: focus on the message, which is not also announced.
    await until(focused).toBe('p:Endpoint saved.×');
    expect(await liveRegionOf(page.getByText('Endpoint saved.'))).toBe(null);
    await page.getByText('Acme WMS, Location 1 · Location 1').waitFor();
    const saved = json(await m.op('GET', `/webhook-endpoints/${endpointId}`), 200, 'getWebhookEndpoint').data;
    expect([saved.description, saved.location_ids, saved.events, saved.url]).toEqual([
      'Acme WMS, Location 1',
      [m.locations[0]],
      ['order.created', 'fulfillment.created'],
      receiver.url,
    ]);
    // A new action replaces the message; leaving the page drops it.
    await page.getByRole('button', { name: 'Send test event' }).click();
    await page.getByText('Test event queued.').waitFor();
    await until(() => page.getByText('Endpoint saved.').count()).toBe(0);
    await nav('Webhooks').click();
    await page.getByRole('link', { name: receiver.url }).click();
    await page.getByRole('heading', { name: 'Delivery log' }).waitFor();
    await until(() => page.getByText('Test event queued.').count()).toBe(0);
    // Rotating from the page (a POST without a body, with the CSRF header) shows the new secret.
    const secretOf = async () => json(await m.op('GET', `/webhook-endpoints/${endpointId}`), 200, 'getWebhookEndpoint').data.signing_secret;
    const before = await secretOf();
    await page.getByRole('button', { name: 'Rotate…' }).click();
    await page.getByRole('button', { name: 'Rotate now' }).click();
    await page.getByText('Secret rotated.').waitFor();
    const rotated = await secretOf();
    expect(rotated).not.toBe(before);
    await page.getByText(rotated).waitFor();
  }, 60_000);

  it('shows a DNS failure with its reason, then deletes that endpoint after confirmation', async () => {
    await nav('Webhooks').click();
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await page.getByLabel('URL').fill('http://no-such-host.invalid/hooks');
    await page.getByRole('checkbox', { name: 'order.created' }).check();
    await page.getByRole('button', { name: 'Add endpoint' }).last().click();
    await page.getByRole('heading', { name: 'Delivery log' }).waitFor();
    await page.getByRole('button', { name: 'Send test event' }).click();
    const row = page.locator('tr[data-delivery]').filter({ hasText: 'ping' });
    await row.getByText('failed').waitFor({ timeout: 20_000 });
    await row.getByText(/getaddrinfo ENOTFOUND no-such-host\.invalid/).waitFor();
    await page
      .getByTestId('health')
      .getByText(/last failure .*getaddrinfo ENOTFOUND no-such-host\.invalid/)
      .waitFor();
    await shot('18-dns-failure-log');
    await row.getByRole('link').click();
    const attempt = page.getByRole('article', { name: 'Attempt 1' });
    await attempt.getByText('no answer').waitFor();
    await attempt.getByText(/getaddrinfo ENOTFOUND no-such-host\.invalid/).waitFor();
    await shot('19-dns-failure-detail');
    await page.getByRole('link', { name: '← Endpoint and delivery log' }).click();

    await page.getByRole('button', { name: 'Delete…' }).click();
    await page.getByText('Delete this endpoint and its delivery log?').waitFor();
    await shot('20-endpoint-delete-confirm');
    await page.getByRole('button', { name: 'Delete endpoint' }).click();
    await page.getByRole('heading', { name: 'Webhook endpoints' }).waitFor();
    // The list says what happened (the message had waited for another page to show it).
    await page.getByRole('status').getByText('Endpoint deleted, with its delivery log.').waitFor();
    await page.getByRole('link', { name: receiver.url }).waitFor();
    await until(() => page.getByText('no-such-host.invalid').count()).toBe(0);
    expect(json(await m.op('GET', '/webhook-endpoints'), 200, 'listWebhookEndpoints').data.map((e) => e.url)).toEqual([receiver.url]);
    await shot('21-webhooks-list');
  }, 60_000);

  it('lists events with payloads and where they went, and an overview with health and the request chart', async () => {
    await nav('Events').click();
    await page.getByRole('heading', { name: 'Events' }).waitFor();
    await page.getByLabel('Type').selectOption('order.created');
    // The filtered list, not the unfiltered one still on screen while the filter loads.
    await until(() => page.locator('details.event summary .chip').allTextContents()).toEqual(['order.created', 'order.created', 'order.created']);
    const newest = page.locator('details.event').first();
    await newest.locator('summary').click();
    // The order's delivery and its resend.
    await newest.getByRole('link', { name: receiver.url }).first().waitFor();
    await until(() => newest.getByRole('link', { name: receiver.url }).count()).toBe(2);
    await newest.getByText('2 deliveries').waitFor();
    expect(await newest.locator('pre.code').textContent()).toContain('"order_number"');
    await shot('22-events');

    await nav('Overview').click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    const counted = await t.database.db
      .selectFrom('request_log')
      .select((eb) => [eb.fn.countAll<string>().as('n')])
      .where('merchant_id', '=', m.id)
      .executeTakeFirstOrThrow();
    await until(() => page.getByTestId('requests-total').textContent()).toBe(String(counted.n));
    await until(() => page.getByTestId('requests-errors').textContent()).toBe('1');
    await page.getByText('Acme 3PL – Location 1').waitFor();
    await page.getByRole('img', { name: /Requests per hour over the last 24 hours/ }).waitFor();
    await page
      .getByText(/deliver(y|ies) in 24 h/)
      .first()
      .waitFor();
    await shot('23-overview');
  }, 60_000);

  it('at 640×400 (a phone on its side, 200 % zoom) and on a phone, no Tab stop of any page ends up under the sticky header (a payload block did)', async () => {
    await page.goto(`${base}/portal/webhooks/${endpointId}`);
    const delivery = (await page.locator('tr[data-delivery]').first().getByRole('link').getAttribute('href'))!;
    await page.goto(`${base}/portal/requests`);
    const request = (await page.locator('table.requests tbody tr').first().getByRole('link').getAttribute('href'))!;
    const under: string[] = [];
    const states: [string, () => Promise<unknown>][] = [
      ['/portal/overview', async () => {}],
      ['/portal/keys', async () => {}],
      ['/portal/keys', () => page.getByRole('button', { name: 'Create key' }).click()],
      ['/portal/webhooks', async () => {}],
      [`/portal/webhooks/${endpointId}`, async () => {}],
      [delivery, () => page.locator('details summary').first().click()],
      ['/portal/requests', async () => {}],
      [request, async () => {}],
      [
        '/portal/events',
        async () => {
          for (const summary of await page.locator('details.event summary').all()) await summary.click();
        },
      ],
      ['/portal/foo', async () => {}],
    ];
    // The header is on two rows at 640 px and on three at 390 px (its nav wraps): 94 and 129 px.
    for (const [width, height] of [
      [640, 400],
      [390, 844],
    ]) {
      await page.setViewportSize({ width, height });
      for (const [address, prepare] of states) {
        await page.goto(`${base}${address}`);
        await page.locator('main h1').first().waitFor();
        await until(() => page.getByText('Loading…').count()).toBe(0);
        await prepare();
        const tabbed = await tabThrough();
        expect([address, tabbed.stops.length > 0]).toEqual([address, true]);
        // The payloads are blocks that scroll, so Tab stops; as tall as 420 px, they were taller than the window under the header.
        if (address === '/portal/events') expect(tabbed.stops).toContain('pre');
        under.push(...tabbed.under.map((stop) => `${width}×${height} ${address}: ${stop}`));
      }
    }
    expect(under).toEqual([]);
    await page.setViewportSize({ width: 1280, height: 860 });
  }, 120_000);

  it('at the endpoint limit, the form says why instead of pointing at fields', async () => {
    const have = json(await m.op('GET', '/webhook-endpoints'), 200, 'listWebhookEndpoints').data.length;
    // Endpoints for an event no test raises, so they receive nothing.
    for (let i = have; i < 20; i++)
      json(await m.op('POST', '/webhook-endpoints', { url: receiver.url, events: ['collection.created'] }), 201, 'createWebhookEndpoint');
    await nav('Webhooks').click();
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await page.getByLabel('URL').fill(receiver.url);
    await page.getByRole('checkbox', { name: 'order.created' }).check();
    await page.getByRole('button', { name: 'Add endpoint' }).last().click();
    await page.getByText('A merchant has at most 20 webhook endpoints: delete one it no longer uses, or subscribe an existing one to more events.').waitFor();
    expect(await page.getByText('Check the highlighted fields.').count()).toBe(0);
    // The browser reports the refused request itself; that one is expected here.
    expect(consoleErrors.splice(0)).toEqual(['Failed to load resource: the server responded with a status of 422 (Unprocessable Entity)']);
    await shot('23b-endpoint-limit');
    await page.keyboard.press('Escape');
  }, 60_000);

  it("long values without spaces wrap: row actions and an endpoint page's buttons stay on screen (they were pushed off at 1280 px)", async () => {
    const label = 'L'.repeat(100);
    const key = json(await m.op('POST', '/api-keys', { label, scopes: ['orders.read'] }), 201, 'createApiKey').data;
    const url = `${receiver.url}/${'p'.repeat(1400)}`;
    const ep = json(
      await m.op('POST', '/webhook-endpoints', { url, events: ['collection.created'], description: 'd'.repeat(400) }),
      201,
      'createWebhookEndpoint',
    ).data;
    for (const [at, button] of [
      ['/portal/keys', `Revoke key ${label}`],
      [`/portal/webhooks/${ep.id}`, 'Edit'],
      [`/portal/webhooks/${ep.id}`, 'Delete…'],
      ['/portal/webhooks', 'Add endpoint'],
    ] as const) {
      await page.goto(`${base}${at}`);
      const box = await page.getByRole('button', { name: button, exact: true }).first().boundingBox();
      expect([at, button, box!.x + box!.width <= 1280]).toEqual([at, button, true]);
      expect([at, (await page.evaluate(() => document.documentElement.scrollWidth)) <= 1280]).toEqual([at, true]);
    }
    await shot('23c-long-values');
    json(await m.op('DELETE', `/api-keys/${key.id}`), 200, 'revokeApiKey');
  }, 60_000);

  it('at phone width: finds a request by id and reads a delivery', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    const res = await fetch(`${loopback}/api/integrations/v1/products`, { headers: { authorization: `Bearer ${keySecret}` } });
    expect(res.status).toBe(200);
    const denied = await fetch(`${loopback}/api/integrations/v1/social-videos`, { headers: { authorization: `Bearer ${keySecret}` } });
    expect(denied.status).toBe(403);
    await page.goto(`${base}/portal/requests`);
    await page.getByLabel('Find a request by its X-Request-Id').fill(denied.headers.get('x-request-id')!);
    await page.getByRole('button', { name: 'Find' }).click();
    const detail = page.getByRole('article', { name: 'Request details' });
    await until(async () => JSON.parse((await detail.getByTestId('problem-body').textContent()) ?? '{}').code).toBe('insufficient_scope');
    expect(await detail.isVisible()).toBe(true);
    // Nothing wider than the phone's screen.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await page.screenshot({ path: path.join(SHOTS, '24-phone-request-found-phone.png'), fullPage: true });
    await page.goto(`${base}/portal/webhooks/${endpointId}`);
    await page.locator('tr[data-delivery]').first().getByRole('link').click();
    await page.getByRole('article', { name: 'Attempt 1' }).waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await page.screenshot({ path: path.join(SHOTS, '25-phone-delivery-phone.png'), fullPage: true });
    await page.setViewportSize({ width: 1280, height: 860 });
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
  }, 60_000);

  it('a session that ends under an open page shows the sign-in form there, and signing in returns to that page; a sign-out and sign-in lands on the overview', async () => {
    await signIn();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await nav('Webhooks').click();
    await page.getByRole('heading', { name: 'Webhook endpoints' }).waitFor();
    // The session ends elsewhere (expiry, a sign-out in another tab): the next load finds it gone.
    // It was "Sign in first." with a Retry that could never work.
    await t.database.db.deleteFrom('portal_sessions').execute();
    await nav('API keys').click();
    await page.getByRole('status').getByText('Your session has ended. Sign in again to go on where you were.').waitFor();
    expect(new URL(page.url()).pathname).toBe('/portal/keys');
    expectOnlyFailedLoads(401);
    await signIn();
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/portal/keys');

    // Signing out on one page and in again showed that page under the overview's address.
    await nav('Webhooks').click();
    await page.getByRole('heading', { name: 'Webhook endpoints' }).waitFor();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await signIn();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/portal/overview');
    expect(await page.getByRole('navigation', { name: 'Sections' }).locator('[aria-current="page"]').textContent()).toBe('Overview');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
  }, 60_000);

  it('a form submitted after its session ended comes back after signing in as it was, unsaved and saying so, and the next submit saves it once (the typing was lost)', async () => {
    const keysLabelled = (label: string) =>
      t.database.db.selectFrom('api_keys').select(['scopes', 'location_ids']).where('merchant_id', '=', m.id).where('label', '=', label).execute();
    await signIn();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await nav('API keys').click();
    await page.getByRole('button', { name: 'Create key' }).click();
    const form = page.getByRole('form', { name: 'Create API key' });
    await form.getByRole('textbox', { name: 'Label', exact: true }).fill('Draft key');
    await form.getByRole('checkbox', { name: /^orders\.read/ }).check();
    await form.getByRole('checkbox', { name: /^inventory\.write/ }).check();
    await form.getByRole('radio', { name: 'Specific locations' }).click();
    await form.getByRole('checkbox', { name: 'Location 2' }).check();
    const typed = await fieldsOf(form);
    expect(typed).toContain('✓ Location 2');
    // The session ends elsewhere; the submit finds it gone.
    await t.database.db.deleteFrom('portal_sessions').execute();
    await form.getByRole('button', { name: 'Create key' }).click();
    await page.getByRole('status').getByText(SESSION_ENDED).waitFor();
    expectOnlyFailedLoads(401);
    await signIn();
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    // The form again, as it was, and not sent by itself: nothing was saved, the person saves it.
    await form.waitFor();
    expect(await fieldsOf(form)).toEqual(typed);
    await until(() => form.getByRole('alert').textContent()).toBe(UNSAVED);
    // Announced as the form's message, focus on its submit button, as a refused submit leaves them.
    await until(focused).toBe('button:Create key');
    expect(await liveRegionOf(form.getByText(UNSAVED))).toBe('alert');
    expect(await keysLabelled('Draft key')).toEqual([]);
    await shot('26-form-given-back-after-sign-in');
    await form.getByRole('button', { name: 'Create key' }).click();
    await until(focused).toMatch(/^p:Key “Draft key” created\./);
    expect(await keysLabelled('Draft key')).toEqual([{ scopes: ['orders.read', 'inventory.write'], location_ids: [m.locations[1]] }]);
    // Given back once: the form opens empty again, after leaving the page or reloading it.
    await page.getByRole('button', { name: 'I have stored it — close' }).click();
    await page.getByRole('button', { name: 'Create key' }).click();
    expect(await fieldsOf(form)).toEqual(['label=', '✓ All locations']);
    await nav('Webhooks').click();
    await nav('API keys').click();
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    await page.getByRole('button', { name: 'Create key' }).waitFor();
    expect(await form.count()).toBe(0);
    await page.reload();
    await page.getByRole('button', { name: 'Create key' }).waitFor();
    expect([await form.count(), await page.getByText(UNSAVED).count()]).toEqual([0, 0]);
    expect(await keysLabelled('Draft key')).toHaveLength(1);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
  }, 60_000);

  it("an edit form open when a sign-out in another tab ends the session comes back with its changes after signing in (the page's refresh found it gone first), once", async () => {
    const saved = async () => {
      const e = json(await m.op('GET', `/webhook-endpoints/${endpointId}`), 200, 'getWebhookEndpoint').data;
      return [e.description, e.events, e.location_ids];
    };
    const before = await saved();
    await signIn();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await page.goto(`${base}/portal/webhooks/${endpointId}`);
    await page.getByRole('button', { name: 'Edit' }).click();
    const form = page.getByRole('form', { name: 'Edit webhook endpoint' });
    await form.getByLabel('Description (optional)').fill('Typed before the sign-out');
    await form.getByRole('checkbox', { name: 'order.cancelled' }).check();
    await form.getByRole('radio', { name: 'All locations' }).click();
    const typed = await fieldsOf(form);
    expect(typed).toContain('✓ order.cancelled');
    const other = await browser.newPage();
    await other.goto(`${base}/portal/overview`);
    await other.getByRole('button', { name: 'Sign out' }).click();
    await other.getByRole('button', { name: 'Sign in' }).waitFor();
    await other.close();
    // The page's refresh (every 3 s) finds the session gone before any submit.
    await page.getByRole('status').getByText(SESSION_ENDED).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/portal/webhooks/${endpointId}`);
    expectSessionEndLoads();
    await signIn();
    await form.waitFor();
    expect(await fieldsOf(form)).toEqual(typed);
    await until(() => form.getByRole('alert').textContent()).toBe(UNSAVED);
    await until(focused).toBe('button:Save changes');
    expect(await saved()).toEqual(before);
    // Closed, it is gone: opened again, the form shows the endpoint as saved, without the message.
    await form.getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('button', { name: 'Edit' }).click();
    expect(await form.getByLabel('Description (optional)').inputValue()).toBe(before[0]);
    expect(await form.getByRole('checkbox', { name: 'order.cancelled' }).isChecked()).toBe(false);
    expect(await form.getByRole('alert').textContent()).toBe('');
    await page.keyboard.press('Escape');
    expect(await saved()).toEqual(before);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
  }, 60_000);

  it('a draft is given back only to the user who typed it: another user signing in at that address gets the page without it, and it is dropped', async () => {
    json(await m.op('POST', '/users', { email: 'second@acme.test', password: 'another horse battery' }), 201, 'createPortalUser');
    /** How many fields of the page hold `text`. */
    const typedAnywhere = (text: string) =>
      page.locator('input').evaluateAll((els, t) => (els as HTMLInputElement[]).filter((e) => e.value.includes(t)).length, text);
    await signIn();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await nav('Webhooks').click();
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const form = page.getByRole('form', { name: 'Add webhook endpoint' });
    await form.getByLabel('URL').fill('https://first-user.example/hooks');
    await form.getByLabel('Description (optional)').fill('Typed by the first user');
    await form.getByRole('checkbox', { name: 'order.created' }).check();
    await t.database.db.deleteFrom('portal_sessions').execute();
    await form.getByRole('button', { name: 'Add endpoint' }).click();
    await page.getByRole('status').getByText(SESSION_ENDED).waitFor();
    expectOnlyFailedLoads(401);
    await signIn('second@acme.test', 'another horse battery');
    await page.getByRole('heading', { name: 'Webhook endpoints' }).waitFor();
    await until(() => page.getByText('Loading…').count()).toBe(0);
    expect(await page.locator('.email').textContent()).toBe('second@acme.test');
    expect([await form.count(), await page.getByText(UNSAVED).count(), await typedAnywhere('first-user.example')]).toEqual([0, 0, 0]);
    // Dropped, not kept for later: the second user's session ends too (on another page, left with
    // Back while signed out), and the first user signing in again at that address gets nothing.
    await t.database.db.deleteFrom('portal_sessions').execute();
    await page.locator('table a').first().click();
    await page.getByRole('status').getByText(SESSION_ENDED).waitFor();
    expectSessionEndLoads();
    await page.goBack();
    await until(() => new URL(page.url()).pathname).toBe('/portal/webhooks');
    await signIn();
    await page.getByRole('heading', { name: 'Webhook endpoints' }).waitFor();
    await until(() => page.getByText('Loading…').count()).toBe(0);
    expect([await form.count(), await page.getByText(UNSAVED).count(), await typedAnywhere('first-user.example')]).toEqual([0, 0, 0]);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
  }, 60_000);

  it('a test event on a disabled endpoint is refused, saying to enable it first (it was queued and sent on enabling, against contract §7)', async () => {
    await signIn();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    // The request log's path box follows the address: Back from a path filter empties it (it kept "/products").
    await nav('Request log').click();
    await page.getByLabel('Path contains').fill('/products');
    await page.getByRole('button', { name: 'Filter' }).click();
    await until(() => new URL(page.url()).searchParams.get('path')).toBe('/products');
    await page.goBack();
    await until(() => new URL(page.url()).searchParams.get('path')).toBe(null);
    await until(() => page.getByLabel('Path contains').inputValue()).toBe('');
    await page.goto(`${base}/portal/webhooks/${endpointId}`);
    await page.getByRole('button', { name: 'Disable' }).click();
    // The button stays (now Enable), with focus: the message is announced, not focused.
    await page.getByRole('status').getByText('Endpoint disabled.').waitFor();
    await until(focused).toBe('button:Enable');
    // The page says why it is disabled (a receiver's 410 Gone says so too: test/webhooks.test.ts).
    await until(() => page.getByTestId('disabled-reason').textContent()).toMatch(
      /^Disabled by hand .+\. Events raised while it is disabled are not sent to it\.$/,
    );
    await page.getByRole('button', { name: 'Send test event' }).click();
    await page
      .getByText('This endpoint is disabled: enable it, then send the test event (a disabled endpoint gets nothing raised while it is disabled).')
      .waitFor();
    expectOnlyFailedLoads(409);
    await page.getByRole('button', { name: 'Enable' }).click();
    await page.getByText('Endpoint enabled.').waitFor();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
  }, 60_000);

  it('an address that names no page says so (it showed another page under it), and times name their zone', async () => {
    await signIn();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    for (const address of ['/portal/foo', '/portal/webhooks/not-a-uuid', '/portal/requests/zzz']) {
      await page.goto(`${base}${address}`);
      await page.getByRole('heading', { name: 'Page not found' }).waitFor();
    }
    await page.getByRole('link', { name: 'Go to the overview' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    // Local times, with the zone named: merchants compare them with logs and answers in UTC.
    await nav('API keys').click();
    await page
      .getByRole('cell', { name: /\d{1,2}:\d{2}.*\b(UTC|GMT[+-]?[\d:]*|[A-Z]{2,5})$/ })
      .first()
      .waitFor();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
  }, 60_000);

  it('a request opened from older pages keeps the list as loaded; focus goes to the detail, and back to its row on Close (the older pages were dropped)', async () => {
    for (let i = 0; i < 55; i++) {
      const res = await fetch(`${loopback}/api/integrations/v1/orders?limit=${(i % 5) + 1}`, { headers: { authorization: `Bearer ${keySecret}` } });
      expect(res.status).toBe(200);
    }
    await signIn();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await nav('Request log').click();
    await page.getByRole('button', { name: 'Older requests' }).click();
    const rows = page.locator('table.requests tbody tr');
    await until(() => rows.count()).toBeGreaterThan(50);
    const count = await rows.count();
    const link = rows.last().getByRole('link');
    const id = await link.getAttribute('id');
    await link.click();
    const detail = page.getByRole('article', { name: 'Request details' });
    await detail.waitFor();
    await until(() => page.title()).toBe('Request · Merchant portal');
    await until(focused).toMatch(/^h2:GET \/api\/integrations\/v1\//);
    expect(await rows.count()).toBe(count);
    await detail.getByRole('button', { name: 'Close' }).click();
    await until(focused).toBe(`a:${id}`);
    expect(await rows.count()).toBe(count);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
  }, 60_000);

  it('by keyboard: titles and focus follow pages, Escape cancels and focus returns to the opener, the message of a key made or revoked takes focus and is not announced as well (focus fell to <body>, then the message was read twice)', async () => {
    await signIn();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await until(() => page.title()).toBe('Overview · Merchant portal');
    await nav('API keys').click();
    await until(() => page.title()).toBe('API keys · Merchant portal');
    await until(focused).toBe('h1:API keys');
    // A confirmation starts on Cancel; Escape cancels it and focus goes back to the button that asked.
    const revoke = page.getByRole('button', { name: /^Revoke key / }).first();
    const opener = await revoke.getAttribute('id');
    await revoke.click();
    await until(focused).toBe('button:Cancel');
    await page.keyboard.press('Escape');
    await until(focused).toBe(`button:${opener}`);
    // A form opens on its first field; Escape closes it, focus back on its opener; one with something
    // typed in it stays (a stray Escape threw the typing away).
    await page.getByRole('button', { name: 'Create key' }).click();
    await until(focused).toBe('input:label');
    await page.keyboard.press('Escape');
    await until(focused).toBe('button:create-key');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.keyboard.type('Half typed');
    await page.keyboard.press('Escape');
    expect(await page.getByRole('textbox', { name: 'Label', exact: true }).inputValue()).toBe('Half typed');
    await page.getByRole('form', { name: 'Create API key' }).getByRole('button', { name: 'Cancel' }).click();
    await until(focused).toBe('button:create-key');
    // A key made: the form and its button are gone; focus on the message, which is outside the live
    // regions (focused and announced, it was read twice).
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByRole('textbox', { name: 'Label', exact: true }).fill('Keyboard key');
    await page.getByRole('checkbox', { name: /^orders\.read/ }).check();
    await page.getByRole('button', { name: 'Create key' }).last().click();
    await until(focused).toMatch(/^p:Key “Keyboard key” created\. Copy/);
    expect(await liveRegionOf(page.locator('.flash-message', { hasText: 'Key “Keyboard key” created.' }))).toBe(null);
    // A key revoked: its Revoke button is gone; focus on what happened, not back at the page's top.
    await page.getByRole('button', { name: 'Revoke key Keyboard key' }).click();
    await page.getByRole('button', { name: 'Revoke key', exact: true }).click();
    await until(focused).toMatch(/^p:Key “Keyboard key” revoked\./);
    await until(() => page.getByRole('button', { name: 'Revoke key Keyboard key' }).count()).toBe(0);
    expect(await focused()).toMatch(/^p:Key “Keyboard key” revoked\./);
    expect(await liveRegionOf(page.locator('.flash-message', { hasText: 'Key “Keyboard key” revoked.' }))).toBe(null);
    // A link followed inside a page: the new page's title and heading.
    await nav('Webhooks').click();
    await page.locator('table a').first().click();
    await until(() => page.title()).toBe('Webhook endpoint · Merchant portal');
    await until(focused).toMatch(/^h1:https?:\/\//);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
  }, 60_000);

  it('a refusal for too many attempts says when to try again (the server sends Retry-After)', async () => {
    for (let i = 0; i < 6; i++) {
      await page.getByLabel('Email').fill('ops@acme.test');
      await page.getByLabel('Password').fill(`wrong password ${i}`);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('alert').waitFor();
    }
    await page
      .getByRole('alert')
      .getByText(/^Too many failed sign-ins\. Try again in (\d+ seconds|about \d+ minutes?)\.$/)
      .waitFor();
    consoleErrors = []; // each refusal is a failed load (401, then 429)
  }, 60_000);
});

/**
 * Tabs through the page each way round until a stop comes again. Gives each stop outside the header
 * (tag name), and those whose box starts above the header's bottom edge: hidden, wholly or in part,
 * under it.
 */
async function tabThrough(): Promise<{ stops: string[]; under: string[] }> {
  const stops: string[] = [];
  const under: string[] = [];
  for (const key of ['Tab', 'Shift+Tab']) {
    await page.evaluate(() => Object.assign(window, { tabStops: new Set<Element>() }));
    for (let i = 0; i < 300; i++) {
      await page.keyboard.press(key);
      const stop = await page.evaluate(() => {
        const seen = (window as unknown as { tabStops: Set<Element> }).tabStops;
        const el = document.activeElement;
        if (!el || el === document.body || el.closest('header')) return null;
        if (seen.has(el)) return 'again';
        seen.add(el);
        const header = document.querySelector('header.topbar')!.getBoundingClientRect();
        const box = el.getBoundingClientRect();
        const name = (el.getAttribute('aria-label') ?? el.textContent ?? '').trim().slice(0, 30);
        const hidden = box.top < header.bottom ? `top ${Math.round(box.top)} < header bottom ${Math.round(header.bottom)}` : null;
        return { tag: el.tagName.toLowerCase(), hidden: hidden && `${el.tagName.toLowerCase()} "${name}" ${hidden}` };
      });
      if (stop === 'again') break;
      if (!stop) continue;
      if (key === 'Tab') stops.push(stop.tag);
      if (stop.hidden) under.push(`${key} to ${stop.hidden}`);
    }
  }
  return { stops, under };
}

/** What the system clipboard holds, read from a secure-context page (127.0.0.1) of the same browser. */
async function clipboardText(): Promise<string> {
  await browser.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: loopback });
  const reader = await browser.newPage();
  try {
    await reader.goto(`${loopback}/healthz`);
    return await reader.evaluate(() => navigator.clipboard.readText());
  } finally {
    await reader.close();
  }
}
