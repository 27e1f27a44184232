// Test data for the warehouse suites: products (through the catalog API: a failing create fails the
// test), stock, orders and fulfillments. Connected products, which may repeat a native SKU, come
// from the operator's connected sync (syncConnectedProduct). No fixture inserts rows directly.
import { randomBytes } from 'node:crypto';
import { json, portalJson, type TestApp, type TestMerchant } from './helpers.ts';
import { startReceiver, type Receiver } from './receiver.ts';

export interface VariantSpec {
  sku: string | null;
  price: number;
  inventory_policy?: 'deny' | 'continue';
  option1?: string;
  option2?: string;
}

export interface MadeProduct {
  id: string;
  title: string;
  variants: { id: string; sku: string | null }[];
}

const writeKeys = new WeakMap<TestMerchant, string>();

/** A native product with variants, for merchant m, created through POST /products (a failure fails the test). */
export async function makeProduct(t: TestApp, m: TestMerchant, title: string, variants: VariantSpec[]): Promise<MadeProduct> {
  if (!writeKeys.has(m)) writeKeys.set(m, await m.key(['products.write', 'products.read']));
  const data = json(await t.api(writeKeys.get(m)!, 'POST', '/products', { title, variants }), 201, 'createProduct').data;
  if (data.variants.length !== variants.length)
    throw new Error(`POST /products made ${data.variants.length} variants of ${variants.length}: ${JSON.stringify(data)}`);
  return { id: data.id, title, variants: data.variants.map((v) => ({ id: v.id, sku: v.sku })) };
}

/** A connected sync through the operator API (POST /merchants/{merchant_id}/connected-sync): what it created and updated, by external id. */
export async function connectedSync(m: TestMerchant, body: { source_name: string } & Record<string, unknown>) {
  return json(await m.op('POST', '/connected-sync', body), 200, 'syncConnectedSource').data;
}

/**
 * A connected product, synced through the operator API (POST /merchants/{merchant_id}/connected-sync): its
 * variants may repeat a native variant's SKU (SKUs are unique among native variants only).
 */
/** Returns the product's id. */
export async function syncConnectedProduct(m: TestMerchant, title: string, variants: VariantSpec[]): Promise<string> {
  const externalId = randomBytes(6).toString('hex');
  const body = {
    source_name: 'shop',
    products: [{ external_id: externalId, title, variants: variants.map((v, i) => ({ external_id: `${externalId}-${i}`, ...v })) }],
  };
  const synced = await connectedSync(m, body);
  const id = synced.products.ids[externalId];
  if (!id) throw new Error(`connected sync did not create ${externalId}: ${JSON.stringify(synced)}`);
  return id;
}

/** The one variant of a connected product synced with syncConnectedProduct: its id. */
export async function syncConnectedVariant(t: TestApp, m: TestMerchant, title: string, variant: VariantSpec): Promise<string> {
  const productId = await syncConnectedProduct(m, title, [variant]);
  return (await t.database.db.selectFrom('variants').select('id').where('product_id', '=', productId).executeTakeFirstOrThrow()).id;
}

/** Set stock through the adjustments API (key needs inventory.adjust). */
export async function addStock(t: TestApp, key: string, variantId: string, locationId: string, quantity: number) {
  return json(
    await t.api(key, 'POST', '/inventory/adjustments', { adjustments: [{ variant_id: variantId, fulfillment_location_id: locationId, adjustment: quantity }] }),
    200,
    'adjustInventory',
  ).data[0];
}

/** Operator intake of an order; returns the order as the API shows it. */
export async function placeOrder(
  m: TestMerchant,
  locationId: string,
  lines: { variant_id: string; quantity: number; price?: number }[],
  extra: Record<string, unknown> = {},
) {
  return json(await m.op('POST', '/orders', { fulfillment_location_id: locationId, line_items: lines, ...extra }), 201, 'createOrder').data;
}

export async function fulfil(
  t: TestApp,
  key: string,
  order: { id: string; line_items: { id: string }[] },
  quantities: number[],
  headers: Record<string, string> = {},
) {
  const items = order.line_items.flatMap((l, i) => (quantities[i] ? [{ merchant_order_item_id: l.id, quantity: quantities[i] }] : []));
  return t.api(key, 'POST', '/fulfillments', { merchant_order_id: order.id, items }, headers);
}

/** Rows of inventory_ledger for a variant, oldest first. */
export async function ledger(t: TestApp, variantId: string) {
  return t.database.db
    .selectFrom('inventory_ledger')
    .select(['location_id', 'on_hand_delta', 'committed_delta', 'cause', 'reference_id', 'reason', 'api_key_id'])
    .where('variant_id', '=', variantId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** Events of a type for a merchant, oldest first (payload.object is the resource). */
export async function events(t: TestApp, merchantId: string, type?: string) {
  let q = t.database.db.selectFrom('events').select(['type', 'location_id', 'payload']).where('merchant_id', '=', merchantId);
  if (type) q = q.where('type', '=', type);
  return q.orderBy('created_at').orderBy('id').execute();
}

/** The Warehouse preset's scopes as the contract (§3) lists them: written out, so a change to the preset shows. */
export const WAREHOUSE = [
  'orders.read',
  'products.read',
  'inventory.read',
  'fulfillments.read',
  'inventory.adjust',
  'fulfillments.create',
  'fulfillments.tracking.write',
];

/** A signed-in portal session: the cookie and the CSRF token its writes carry. */
export interface PortalSession {
  cookie: string;
  csrf: string;
}

export const PORTAL_PASSWORD = 'correct horse battery';

/** Signs in an existing portal user (password `PORTAL_PASSWORD`); a refused login fails the test. */
export async function portalLogin(t: TestApp, email: string, remoteAddress?: string): Promise<PortalSession> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/portal/api/login',
    payload: { email, password: PORTAL_PASSWORD },
    ...(remoteAddress ? { remoteAddress } : {}),
  });
  return { cookie: String(res.headers['set-cookie']).split(';')[0], csrf: portalJson(res, 200, 'POST /portal/api/login').data.csrf_token };
}

/** A portal user of the merchant (created through the operator API), signed in. */
export async function portalUser(t: TestApp, m: TestMerchant, email: string, remoteAddress?: string): Promise<PortalSession> {
  json(await m.op('POST', '/users', { email, password: PORTAL_PASSWORD }), 201, 'createPortalUser');
  return portalLogin(t, email, remoteAddress);
}

/** A portal call in a signed-in session (cookie and CSRF token). */
export function portalCall(t: TestApp, s: PortalSession, method: string, url: string, payload?: unknown) {
  return t.app.inject({
    method: method as never,
    url: `/portal/api${url}`,
    headers: { cookie: s.cookie, 'x-csrf-token': s.csrf },
    ...(payload !== undefined ? { payload: payload as never } : {}),
  });
}

/** An endpoint of the merchant sending `events` to `url`, created through the operator API. */
export async function webhookEndpoint(m: TestMerchant, url: string, events: string[], extra: Record<string, unknown> = {}) {
  return json(await m.op('POST', '/webhook-endpoints', { url, events, ...extra }), 201, 'createWebhookEndpoint').data;
}

/** An endpoint of the merchant (operator API) that has been sent one test ping. */
export async function pingedEndpoint(m: TestMerchant, url: string, events: string[]) {
  const endpoint = await webhookEndpoint(m, url, events);
  json(await m.op('POST', `/webhook-endpoints/${endpoint.id}/test`, {}), 200, 'testWebhookEndpoint');
  return endpoint;
}

/** An endpoint created in the portal by a signed-in user. */
export async function portalEndpoint(t: TestApp, s: PortalSession, body: { url: string; events: string[] } & Record<string, unknown>) {
  return portalJson(await portalCall(t, s, 'POST', '/webhook-endpoints', body), 201, 'POST /portal/api/webhook-endpoints').data;
}

/** An endpoint of the merchant's sending `events` to a receiver of its own, handed to `opened` (the caller closes it). */
export async function receivingEndpoint(m: TestMerchant, events: string[], extra: Record<string, unknown>, opened: (receiver: Receiver) => void) {
  const receiver = await startReceiver();
  opened(receiver);
  return webhookEndpoint(m, receiver.url, events, extra);
}
