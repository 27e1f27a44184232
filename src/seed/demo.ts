// The demo merchant a new database starts with, so `npm start` shows something real at once:
// application code (it calls the services, as an operator would), so it lives above the modules.
import { randomBytes } from 'node:crypto';
import type { Database } from '../db/database.ts';
import { merchantScope } from '../db/scope.ts';
import { WAREHOUSE_PRESET, SCOPES } from '../http/scopes.ts';
import { createApiKey } from '../modules/api-keys/service.ts';
import { createMerchant, createPortalUser } from '../modules/merchants/service.ts';
import { createMediaAsset, createNamed } from '../modules/reference/service.ts';
import { seedCatalog } from './catalog.ts';
import type { DemoContext } from './context.ts';
import { seedOrders } from './orders.ts';

export interface DemoCredentials {
  merchantId: string;
  apiKey: string;
  warehouseKey: string;
  email: string;
  password: string;
}

/** Seeds the demo merchant in `trx`, the transaction that created the database (migrate's onNewDatabase). */
export async function seedDemo(trx: Database): Promise<DemoCredentials> {
  const merchant = await createMerchant(trx, { name: 'Demo Outfitters', currency: 'USD' });
  const ctx = { db: trx, ...merchantScope(merchant.id), apiKeyId: null };
  const locations = [await createNamed(ctx, 'locations', 'Main Warehouse'), await createNamed(ctx, 'locations', 'East Coast 3PL')];
  const vendors = [await createNamed(ctx, 'vendors', 'Northwind Apparel'), await createNamed(ctx, 'vendors', 'Summit Gear')];
  const tags = [];
  for (const t of ['summer', 'bestseller', 'outdoor']) tags.push(await createNamed(ctx, 'tags', t));
  const images = [];
  for (const n of ['tee-front', 'tee-back', 'hoodie', 'mug']) {
    images.push(await createMediaAsset(ctx, { url: `https://images.example.com/demo/${n}.jpg`, kind: 'image', alt: n.replace('-', ' ') }));
  }
  const demo: DemoContext = { ctx, locations, vendors, tags, images, variants: {} };
  await seedCatalog(demo);
  await seedOrders(demo);

  const all = await createApiKey(ctx, { label: 'Demo: all scopes', scopes: [...SCOPES] });
  const warehouse = await createApiKey(ctx, { label: 'Demo: Main Warehouse', scopes: WAREHOUSE_PRESET, location_ids: [locations[0].id] });
  const email = 'demo@example.com';
  const password = randomBytes(9).toString('base64url');
  await createPortalUser(ctx, { email, password });
  return { merchantId: merchant.id, apiKey: all.secret, warehouseKey: warehouse.secret, email, password };
}
