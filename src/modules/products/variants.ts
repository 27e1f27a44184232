// Replacing a product's variant set, for native writes (rows matched by id) and connected sync
// (rows matched by external_id): matched rows update, the others are created, unlisted ones go
// (with their inventory rows, contract §6); a new SKU changes the variant's inventory rows too.
import type { Database } from '../../db/database.ts';
import type { Scope } from '../../db/scope.ts';
import { emitEvents } from '../../events/outbox.ts';
import { inventoryUpdated, touchVariantLevels } from '../inventory/queries.ts';
import { clearSkus, deleteVariants, insertVariant, selectVariantKeys, updateVariant, type VariantValues } from './queries.ts';
import type { VariantInput } from './schemas.ts';

function variantValues(v: VariantInput, position: number): VariantValues {
  const { id: _id, price, compare_at_price, weight, ...rest } = v;
  const out: VariantValues = { ...rest, position };
  // Money and weight go to numeric columns as their exact decimal text.
  if (price !== undefined) out.price = String(price);
  if (compare_at_price !== undefined) out.compare_at_price = compare_at_price === null ? null : String(compare_at_price);
  if (weight !== undefined) out.weight = weight === null ? null : String(weight);
  return out;
}

export async function replaceVariants(
  trx: Database,
  scope: Scope,
  productId: string,
  source: 'native' | 'connected',
  rows: VariantInput[],
  matchBy: 'id' | 'external_id' = 'id',
) {
  const existing = await selectVariantKeys(trx, scope, productId);
  const byExternal = new Map(existing.map((e) => [e.external_id, e.id]));
  const matched = matchBy === 'id' ? rows : rows.map((r) => ({ ...r, id: byExternal.get(r.external_id ?? null) }));
  const keep = new Set(matched.map((r) => r.id));
  const removed = existing.map((e) => e.id).filter((id) => !keep.has(id));
  if (removed.length) await deleteVariants(trx, scope, removed);
  const changing = matched.filter((r) => r.id && r.sku !== undefined).map((r) => r.id!);
  if (changing.length) await clearSkus(trx, scope, changing);
  for (const [position, v] of matched.entries()) {
    if (v.id) await updateVariant(trx, scope, productId, v.id, variantValues(v, position));
    else await insertVariant(trx, scope, productId, source, variantValues(v, position));
  }
  // A variant's inventory rows show its SKU: a new one changes them (updated_at, inventory.updated).
  const skuBefore = new Map(existing.map((e) => [e.id, e.sku]));
  const renamed = matched.filter((r) => r.id && r.sku !== undefined && (r.sku ?? null) !== skuBefore.get(r.id)).map((r) => r.id!);
  await emitEvents(trx, scope.merchantId, inventoryUpdated(await touchVariantLevels(trx, scope, renamed)));
}
