// Inventory: list rows, apply adjustment batches (all or nothing), and announce changed rows.
import { inTransaction } from '../../db/database.ts';
import { canSeeLocation } from '../../db/scope.ts';
import { emitEvents } from '../../events/outbox.ts';
import type { Ctx } from '../../http/context.ts';
import { AppError, found, invalid, invalidFields, type FieldError } from '../../http/errors.ts';
import type { PageRequest } from '../../http/paging.ts';
import {
  adjustmentTargets,
  inventoryUpdated,
  knownLocations,
  levelKey,
  moveStock,
  selectInventoryPage,
  selectInventoryRow,
  STOCK_BOUND,
  type StockMove,
} from './queries.ts';
import type { Adjustment, InventoryFilters, InventoryRow } from './schemas.ts';

/** The row a problem of the batch names: 4 for "/adjustments/4/sku". */
const rowIndex = (path: string) => Number(path.split('/')[2]);

const locationForbidden = (path: string) =>
  new AppError('location_forbidden', `${path}: this API key is restricted to other fulfillment locations.`, [
    { path, message: 'is outside the locations of this API key', code: 'location_forbidden' },
  ]);

/** One row; 404 when it is not the merchant's or is at a location outside the key's. */
export async function getInventoryRow(ctx: Ctx, id: string) {
  return found(await selectInventoryRow(ctx.db, ctx, id), 'inventory row');
}

export async function listInventory(ctx: Ctx, page: PageRequest, filters: InventoryFilters) {
  if (filters.location_id) {
    if (!(await knownLocations(ctx.db, ctx, [filters.location_id])).has(filters.location_id)) {
      throw invalid('/location_id', 'is not a location of this merchant', 'unknown_id');
    }
    if (!canSeeLocation(ctx, filters.location_id)) throw locationForbidden('/location_id');
  }
  return selectInventoryPage(ctx.db, ctx, page, filters);
}

/**
 * Apply a batch of on_hand deltas atomically: every row resolves (variant by id or by SKU, the
 * merchant's location, the key's locations) and no row leaves on_hand negative, or nothing applies.
 * A constant number of statements whatever the batch's size: what it names, its ledger rows, the
 * upsert of its rows (locked in a stable order until the commit), its events with their deliveries.
 */
export async function adjustInventory(ctx: Ctx, adjustments: Adjustment[]): Promise<InventoryRow[]> {
  return inTransaction(ctx.db, async (trx) => {
    const errors: FieldError[] = [];
    const at = (i: number, field: string) => `/adjustments/${i}/${field}`;

    const ids = [...new Set(adjustments.flatMap((a) => (a.variant_id ? [a.variant_id] : [])))];
    const skus = [...new Set(adjustments.flatMap((a) => (!a.variant_id && a.sku !== undefined ? [a.sku] : [])))];
    const targets = await adjustmentTargets(trx, ctx, { locationIds: adjustments.map((a) => a.fulfillment_location_id), variantIds: ids, skus });
    const { locations } = targets;

    // Locations first: one outside the key's locations refuses the whole batch (403), while a
    // location that is not the merchant's at all is simply unknown (422).
    const forbidden = adjustments.findIndex((a) => locations.has(a.fulfillment_location_id) && !canSeeLocation(ctx, a.fulfillment_location_id));
    if (forbidden >= 0) throw locationForbidden(at(forbidden, 'fulfillment_location_id'));

    const idSet = new Set(ids);
    const skuSet = new Set(skus);
    const byId = new Map<string, string | null>();
    const bySku = new Map<string, string[]>();
    for (const v of targets.variants) {
      if (idSet.has(v.id)) byId.set(v.id, v.sku);
      if (v.sku !== null && skuSet.has(v.sku)) bySku.set(v.sku, [...(bySku.get(v.sku) ?? []), v.id]);
    }

    // A row that resolves is the stock move it asks for; its index names it in later problems.
    const resolved: (StockMove & { index: number })[] = [];
    adjustments.forEach((a, i) => {
      let variantId: string | null = null;
      if (a.variant_id) {
        if (!byId.has(a.variant_id)) errors.push({ path: at(i, 'variant_id'), message: 'is not a variant of this merchant', code: 'unknown_id' });
        else if (a.sku !== undefined && byId.get(a.variant_id) !== a.sku)
          errors.push({ path: at(i, 'sku'), message: 'does not match the variant', code: 'mismatch' });
        else variantId = a.variant_id;
      } else if (a.sku !== undefined) {
        const found = bySku.get(a.sku) ?? [];
        if (found.length === 0) errors.push({ path: at(i, 'sku'), message: 'matches no variant of this merchant', code: 'unknown_sku' });
        else if (found.length > 1) errors.push({ path: at(i, 'sku'), message: `matches ${found.length} variants; send variant_id`, code: 'ambiguous_sku' });
        else variantId = found[0];
      } else {
        // The schema's anyOf (variant_id or sku), checked here: see AdjustmentRow.
        errors.push({ path: at(i, 'variant_id'), message: 'variant_id or sku is required', code: 'required' });
      }
      if (!locations.has(a.fulfillment_location_id)) {
        errors.push({ path: at(i, 'fulfillment_location_id'), message: 'is not a location of this merchant', code: 'unknown_id' });
      }
      if (a.adjustment === 0) errors.push({ path: at(i, 'adjustment'), message: 'must not be 0', code: 'out_of_range' });
      if (variantId && locations.has(a.fulfillment_location_id)) {
        resolved.push({
          index: i,
          variantId,
          locationId: a.fulfillment_location_id,
          onHandDelta: a.adjustment,
          committedDelta: 0,
          cause: 'adjustment',
          referenceId: null,
          reason: a.reason ?? null,
          apiKeyId: ctx.apiKeyId,
        });
      }
    });
    // The rows that resolve are moved even when others do not, so that one answer names every
    // error: the stock a resolved row would leave does not depend on rows that name nothing (they
    // move no stock). A refused batch rolls back with its transaction.
    const rows = await moveStock(trx, ctx, resolved);

    // Rows apply in request order per inventory row: walk each row's on_hand from where the batch
    // found it, and name every row after which it is negative.
    const onHand = new Map<string, number>();
    for (const [key, row] of rows) onHand.set(key, row.on_hand);
    for (const r of resolved) onHand.set(levelKey(r.variantId, r.locationId), onHand.get(levelKey(r.variantId, r.locationId))! - r.onHandDelta);
    for (const r of resolved) {
      const key = levelKey(r.variantId, r.locationId);
      const after = onHand.get(key)! + r.onHandDelta;
      onHand.set(key, after);
      // A row that makes on_hand negative is refused; stock received while on_hand is below 0 (a
      // continue-policy variant fulfilled without stock) only reduces the deficit, and is taken.
      if (after < 0 && r.onHandDelta < 0)
        errors.push({ path: at(r.index, 'adjustment'), message: `would leave on_hand at ${after}`, code: 'negative_on_hand' });
      else if (after > STOCK_BOUND && r.onHandDelta > 0)
        errors.push({ path: at(r.index, 'adjustment'), message: `would leave on_hand at ${after}, above ${STOCK_BOUND}`, code: 'out_of_range' });
    }
    // In row order; within a row, what it names before the stock it would leave (a stable sort).
    if (errors.length) throw invalidFields(errors.sort((a, b) => rowIndex(a.path) - rowIndex(b.path)));

    await emitEvents(trx, ctx.merchantId, inventoryUpdated(rows.values()));
    return resolved.map((r) => rows.get(levelKey(r.variantId, r.locationId))!);
  });
}
