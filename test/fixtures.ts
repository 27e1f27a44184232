// Test data for the warehouse suites: products (through the catalog API once it answers 201,
// otherwise inserted with Kysely as plain test setup), stock, orders and fulfillments.
import { randomBytes } from 'node:crypto';
import { json, type TestApp, type TestMerchant } from './helpers.ts';

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

/** A native product with variants, for merchant m. */
export async function makeProduct(t: TestApp, m: TestMerchant, title: string, variants: VariantSpec[]): Promise<MadeProduct> {
  if (!writeKeys.has(m)) writeKeys.set(m, await m.key(['products.write', 'products.read']));
  const res = await t.api(writeKeys.get(m)!, 'POST', '/products', { title, variants });
  if (res.statusCode === 201) {
    const data = json(res).data;
    if (Array.isArray(data?.variants) && data.variants.length === variants.length) {
      return { id: data.id, title, variants: data.variants.map((v: { id: string; sku: string | null }) => ({ id: v.id, sku: v.sku })) };
    }
  }
  return insertProduct(t, m.id, title, variants);
}

/** Direct insert (also used for connected variants that may repeat a SKU). */
export async function insertProduct(t: TestApp, merchantId: string, title: string, variants: VariantSpec[], source: 'native' | 'connected' = 'native'): Promise<MadeProduct> {
  const db = t.database.db;
  const ext = source === 'connected' ? { source_name: 'shop', external_id: randomBytes(6).toString('hex') } : { source_name: null, external_id: null };
  const product = await db
    .insertInto('products')
    .values({ merchant_id: merchantId, title, handle: `p-${randomBytes(6).toString('hex')}`, source, ...ext, description: null, pending_title: null, pending_description: null, vendor_id: null, primary_image_asset_id: null })
    .returning(['id'])
    .executeTakeFirstOrThrow();
  const rows = await db
    .insertInto('variants')
    .values(
      variants.map((v, position) => ({
        merchant_id: merchantId,
        product_id: product.id,
        source,
        external_id: source === 'connected' ? randomBytes(6).toString('hex') : null,
        position,
        sku: v.sku,
        option1: v.option1 ?? null,
        option2: v.option2 ?? null,
        option3: null,
        price: v.price,
        compare_at_price: null,
        barcode: null,
        inventory_policy: v.inventory_policy ?? 'deny',
        media_asset_id: null,
        shipping_profile: null,
      })),
    )
    .returning(['id', 'sku', 'position'])
    .execute();
  rows.sort((a, b) => a.position - b.position);
  return { id: product.id, title, variants: rows.map((r) => ({ id: r.id, sku: r.sku })) };
}

/** Set stock through the adjustments API (key needs inventory.adjust). */
export async function addStock(t: TestApp, key: string, variantId: string, locationId: string, quantity: number) {
  return json(await t.api(key, 'POST', '/inventory/adjustments', { adjustments: [{ variant_id: variantId, fulfillment_location_id: locationId, adjustment: quantity }] }), 200).data[0];
}

/** Operator intake of an order; returns the order as the API shows it. */
export async function placeOrder(
  m: TestMerchant,
  locationId: string,
  lines: { variant_id: string; quantity: number; price?: number }[],
  extra: Record<string, unknown> = {},
) {
  return json(await m.op('POST', '/orders', { fulfillment_location_id: locationId, line_items: lines, ...extra }), 201).data;
}

export async function fulfil(t: TestApp, key: string, order: { id: string; line_items: { id: string }[] }, quantities: number[], headers: Record<string, string> = {}) {
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

export const WAREHOUSE = ['orders.read', 'products.read', 'inventory.read', 'fulfillments.read', 'inventory.adjust', 'fulfillments.create', 'fulfillments.tracking.write'];
