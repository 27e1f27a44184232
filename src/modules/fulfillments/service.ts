// Fulfillments: written back by the warehouse against open orders; tracking makes them shipped.
import { inTransaction } from '../../db/database.ts';
import { canSeeLocation } from '../../db/scope.ts';
import { emitEvent, emitEvents } from '../../events/outbox.ts';
import type { Ctx } from '../../http/context.ts';
import { AppError, found, invalid, invalidFields, notFound, type FieldError } from '../../http/errors.ts';
import type { PageRequest } from '../../http/paging.ts';
import type { JsonText } from '../../http/serialize.ts';
import { inventoryUpdated, levelKey, moveStock, STOCK_BOUND } from '../inventory/queries.ts';
import { fulfillmentStatusOf } from '../orders/records/present.ts';
import {
  addFulfilledQuantities,
  loadFulfillments,
  loadOrders,
  visibleFulfillment,
  lockOrder,
  orderLines,
  orderStatus,
  updateOrderState,
} from '../orders/records/queries.ts';
import type { Fulfillment } from '../orders/records/schemas.ts';
import { insertFulfillment, lockFulfillment, selectFulfillmentPage, setTracking } from './queries.ts';
import type { FulfillmentCreate, FulfillmentFilters, TrackingInput } from './schemas.ts';

/**
 * Create a fulfillment: the order row is locked first, so two requests racing for the last
 * fulfillable unit are serialized and the second sees what the first took.
 */
export async function createFulfillment(ctx: Ctx, input: FulfillmentCreate): Promise<Fulfillment> {
  return inTransaction(ctx.db, async (trx) => {
    // The status as the request found it, before waiting for the lock: a request that arrived
    // while the order was open and lost the race for its last units is told about the quantity
    // (422), not about the state the winner left behind.
    const arrivedOpen = (await orderStatus(trx, ctx, input.merchant_order_id)) === 'open';
    const order = await lockOrder(trx, ctx, input.merchant_order_id);
    if (!order || !canSeeLocation(ctx, order.fulfillment_location_id)) {
      throw invalid('/merchant_order_id', 'is not an order of this merchant', 'unknown_id');
    }
    const lostRace = arrivedOpen && order.status === 'closed';
    if (order.status !== 'open' && !lostRace) throw new AppError('invalid_state', `The order is ${order.status}; only an open order can be fulfilled.`);

    const lines = await orderLines(trx, ctx, order.id);
    const lineById = new Map(lines.map((l) => [l.id, l]));

    // Several entries for one line item count together.
    const wanted = new Map<string, number>();
    const errors: FieldError[] = [];
    input.items.forEach((it, i) => {
      if (!lineById.has(it.merchant_order_item_id)) {
        errors.push({ path: `/items/${i}/merchant_order_item_id`, message: 'is not a line item of this order', code: 'unknown_id' });
      } else {
        wanted.set(it.merchant_order_item_id, (wanted.get(it.merchant_order_item_id) ?? 0) + it.quantity);
      }
    });
    input.items.forEach((it, i) => {
      const line = lineById.get(it.merchant_order_item_id);
      if (!line) return;
      const left = line.quantity - line.fulfilled_quantity;
      if (wanted.get(line.id)! > left) {
        errors.push({ path: `/items/${i}/quantity`, message: `exceeds the fulfillable quantity (${left})`, code: 'exceeds_fulfillable' });
      }
    });
    if (errors.length) throw invalidFields(errors.sort((a, b) => a.path.localeCompare(b.path, 'en', { numeric: true })));
    if (lostRace) throw new AppError('invalid_state', 'The order is closed; only an open order can be fulfilled.');

    const merged = [...wanted.entries()];
    const created = await insertFulfillment(trx, ctx, {
      orderId: order.id,
      locationId: order.fulfillment_location_id,
      carrierName: input.carrier_name ?? null,
      serviceLevel: input.service_level ?? null,
      items: merged.map(([lineId, quantity]) => ({ merchant_order_item_id: lineId, quantity })),
    });
    await addFulfilledQuantities(trx, ctx, merged);
    for (const [lineId, quantity] of merged) lineById.get(lineId)!.fulfilled_quantity += quantity;

    // Stock leaves the building: out of on_hand and out of committed, per variant.
    const perVariant = new Map<string, number>();
    for (const [lineId, quantity] of merged) {
      const line = lineById.get(lineId)!;
      if (line.variant_id && line.variant_exists) perVariant.set(line.variant_id, (perVariant.get(line.variant_id) ?? 0) + quantity);
    }
    const levels = await moveStock(
      trx,
      ctx,
      [...perVariant].map(([variantId, q]) => ({
        variantId,
        locationId: order.fulfillment_location_id,
        onHandDelta: -q,
        committedDelta: -q,
        cause: 'fulfillment',
        referenceId: created.id,
        apiKeyId: ctx.apiKeyId,
      })),
    );

    // Stock shipped that was not there leaves on_hand below 0; beyond -STOCK_BOUND it is refused by name.
    const below: FieldError[] = [];
    input.items.forEach((it, i) => {
      const line = lineById.get(it.merchant_order_item_id)!;
      const level = line.variant_id && line.variant_exists ? levels.get(levelKey(line.variant_id, order.fulfillment_location_id)) : undefined;
      if (level && level.on_hand < -STOCK_BOUND) {
        below.push({ path: `/items/${i}/quantity`, message: `would leave on_hand at ${level.on_hand}, below -${STOCK_BOUND}`, code: 'out_of_range' });
      }
    });
    if (below.length) throw invalidFields(below);

    const status = fulfillmentStatusOf(lines);
    await updateOrderState(trx, ctx, order.id, { fulfillment_status: status, ...(status === 'fulfilled' ? { status: 'closed' as const } : {}) });

    const [updatedOrder] = await loadOrders(trx, ctx, [order.id]);
    await emitEvents(trx, ctx.merchantId, [
      { type: 'fulfillment.created', locationId: created.fulfillment_location_id, object: created },
      { type: 'order.updated', locationId: updatedOrder.fulfillment_location_id, object: updatedOrder },
      ...inventoryUpdated(levels.values()),
    ]);
    return created;
  });
}

/** Attach or replace tracking; the fulfillment becomes shipped. */
export async function attachTracking(ctx: Ctx, fulfillmentId: string, input: TrackingInput): Promise<Fulfillment> {
  return inTransaction(ctx.db, async (trx) => {
    const row = await lockFulfillment(trx, ctx, fulfillmentId);
    if (!row || !canSeeLocation(ctx, row.fulfillment_location_id)) throw notFound('fulfillment');
    if (row.status === 'cancelled') throw new AppError('invalid_state', 'The fulfillment is cancelled; tracking cannot be attached.');
    await setTracking(trx, ctx, row.id, input);
    const [updated] = await loadFulfillments(trx, ctx, [row.id]);
    await emitEvent(trx, { merchantId: ctx.merchantId, type: 'fulfillment.updated', locationId: updated.fulfillment_location_id, object: updated });
    return updated;
  });
}

export const listFulfillments = (ctx: Ctx, page: PageRequest, filters: FulfillmentFilters) => selectFulfillmentPage(ctx.db, ctx, page, filters);

/** One fulfillment; another merchant's, or one at a location hidden from the key, is not found. */
export const getFulfillment = async (ctx: Ctx, id: string): Promise<JsonText<Fulfillment>> => found(await visibleFulfillment(ctx.db, ctx, id), 'fulfillment');
