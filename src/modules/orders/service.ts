// Orders: storefront intake (numbering, snapshots, committing stock), cancellation, and reads.
import { inTransaction } from '../../db/database.ts';
import { canSeeLocation } from '../../db/scope.ts';
import { emitEvents } from '../../events/outbox.ts';
import type { Ctx } from '../../http/context.ts';
import { AppError, fieldsProblem, found, invalidFields, notFound, type FieldError } from '../../http/errors.ts';
import type { PageRequest } from '../../http/paging.ts';
import type { JsonText } from '../../http/serialize.ts';
import { inventoryUpdated, knownLocations, levelKey, moveStock, STOCK_BOUND, type StockMove } from '../inventory/queries.ts';
import { fulfillmentStatusOf, group } from './records/present.ts';
import {
  addFulfilledQuantities,
  cancelFulfillments,
  loadFulfillments,
  loadOrders,
  visibleOrder,
  lockOrder,
  orderLines,
  pendingFulfillments,
  updateOrderState,
} from './records/queries.ts';
import type { Order } from './records/schemas.ts';
import { insertOrder, intakeVariants, selectOrderPage, takeOrderNumber } from './queries.ts';
import type { OrderFilters, OrderIntake } from './schemas.ts';
import { centsToString, hasTwoDecimals, toCents } from '../../http/money.ts';

// numeric(12,2): the largest order total we can keep exactly.
const MAX_TOTAL_CENTS = 999_999_999_999;

function variantTitle(v: { option1: string | null; option2: string | null; option3: string | null }): string | null {
  const title = [v.option1, v.option2, v.option3].filter((o): o is string => o !== null && o !== '').join(' / ');
  return title === '' || title === 'Default' ? null : title;
}

/**
 * Storefront intake (operator API): validates the location and variants, snapshots each line,
 * numbers the order per merchant and commits its quantities at the order's location.
 */
export async function createOrder(ctx: Ctx, input: OrderIntake): Promise<Order> {
  return inTransaction(ctx.db, async (trx) => {
    const errors: FieldError[] = [];
    const locations = await knownLocations(trx, ctx, [input.fulfillment_location_id]);
    if (!locations.has(input.fulfillment_location_id)) {
      errors.push({ path: '/fulfillment_location_id', message: 'is not a location of this merchant', code: 'unknown_id' });
    }
    const variantIds = [...new Set(input.line_items.map((l) => l.variant_id))];
    const variants = await intakeVariants(trx, ctx, variantIds);
    input.line_items.forEach((l, i) => {
      if (!variants.has(l.variant_id)) errors.push({ path: `/line_items/${i}/variant_id`, message: 'is not a variant of this merchant', code: 'unknown_id' });
      if (l.price !== undefined && !hasTwoDecimals(l.price))
        errors.push({ path: `/line_items/${i}/price`, message: 'must have at most 2 decimals', code: 'invalid_format' });
    });
    if (errors.length) throw invalidFields(errors);

    const lines = input.line_items.map((l, i) => {
      const v = variants.get(l.variant_id)!;
      const cents = l.price !== undefined ? toCents(l.price) : toCents(v.price);
      return { index: i, variant: v, quantity: l.quantity, cents };
    });
    const totalCents = lines.reduce((s, l) => s + l.cents * l.quantity, 0);
    if (totalCents > MAX_TOTAL_CENTS) throw invalidFields([{ path: '/line_items', message: 'the order total is too large', code: 'out_of_range' }]);

    // Numbering takes the merchant row's lock: concurrent intakes of one merchant get 1001, 1002, …
    const merchant = await takeOrderNumber(trx, ctx);
    const orderId = await insertOrder(
      trx,
      ctx,
      {
        order_number: merchant.order_number,
        fulfillment_location_id: input.fulfillment_location_id,
        currency: merchant.currency,
        total_price: centsToString(totalCents),
        customer: input.customer ? JSON.stringify(input.customer) : null,
        shipping_address: input.shipping_address ? JSON.stringify(input.shipping_address) : null,
      },
      lines.map((l) => ({
        position: l.index,
        product_id: l.variant.product_id,
        variant_id: l.variant.id,
        sku: l.variant.sku,
        title: l.variant.title,
        variant_title: variantTitle(l.variant),
        quantity: l.quantity,
        price: centsToString(l.cents),
      })),
    );

    // Commit per variant; a deny-policy variant may not end with negative available stock.
    const perVariant = [...group(lines, (l) => l.variant.id).values()].map((ls) => ({
      variantId: ls[0].variant.id,
      policy: ls[0].variant.inventory_policy,
      quantity: ls.reduce((s, l) => s + l.quantity, 0),
      indexes: ls.map((l) => l.index),
    }));
    const levels = await moveStock(
      trx,
      ctx,
      perVariant.map((c) => ({
        variantId: c.variantId,
        locationId: input.fulfillment_location_id,
        onHandDelta: 0,
        committedDelta: c.quantity,
        cause: 'order',
        referenceId: orderId,
        apiKeyId: ctx.apiKeyId,
      })),
    );
    const short: FieldError[] = [];
    const beyond: FieldError[] = [];
    for (const c of perVariant) {
      const level = levels.get(levelKey(c.variantId, input.fulfillment_location_id))!;
      if (level.committed > STOCK_BOUND) {
        const message = `would commit ${level.committed} units of this variant at this location, above ${STOCK_BOUND}`;
        for (const i of c.indexes) beyond.push({ path: `/line_items/${i}/quantity`, message, code: 'out_of_range' });
      }
      if (c.policy === 'deny' && level.available < 0) {
        for (const i of c.indexes) {
          short.push({
            path: `/line_items/${i}/quantity`,
            message: `only ${level.available + c.quantity} available at this location`,
            code: 'insufficient_inventory',
          });
        }
      }
    }
    if (beyond.length) throw invalidFields(beyond.sort((a, b) => a.path.localeCompare(b.path, 'en', { numeric: true })));
    if (short.length) {
      short.sort((a, b) => a.path.localeCompare(b.path, 'en', { numeric: true }));
      throw fieldsProblem('insufficient_inventory', short);
    }

    const [created] = await loadOrders(trx, ctx, [orderId]);
    await emitEvents(trx, ctx.merchantId, [
      { type: 'order.created', locationId: created.fulfillment_location_id, object: created },
      ...inventoryUpdated(levels.values()),
    ]);
    return created;
  });
}

/**
 * Cancel an open order: release what is still committed, cancel its pending fulfillments and
 * return their quantities to on_hand. Shipped fulfillments stay as they are.
 */
export async function cancelOrder(ctx: Ctx, orderId: string): Promise<Order> {
  return inTransaction(ctx.db, async (trx) => {
    const order = await lockOrder(trx, ctx, orderId);
    if (!order || !canSeeLocation(ctx, order.fulfillment_location_id)) throw notFound('order');
    if (order.status !== 'open') throw new AppError('invalid_state', `The order is ${order.status}; only an open order can be cancelled.`);

    const lines = await orderLines(trx, ctx, orderId);
    const pending = await pendingFulfillments(trx, ctx, orderId);
    const returned = pending.quantityByLine;
    await cancelFulfillments(trx, ctx, pending.ids);

    const moves = new Map<string, StockMove>();
    const unfulfilled: [string, number][] = [];
    for (const l of lines) {
      const back = returned.get(l.id) ?? 0;
      if (back > 0) {
        unfulfilled.push([l.id, -back]);
        l.fulfilled_quantity -= back;
      }
      const release = l.quantity - (l.fulfilled_quantity + back);
      if (!l.variant_id || !l.variant_exists || (release === 0 && back === 0)) continue;
      const m = moves.get(l.variant_id) ?? {
        variantId: l.variant_id,
        locationId: order.fulfillment_location_id,
        onHandDelta: 0,
        committedDelta: 0,
        cause: 'cancellation',
        referenceId: orderId,
        apiKeyId: ctx.apiKeyId,
      };
      m.onHandDelta += back;
      m.committedDelta -= release;
      moves.set(l.variant_id, m);
    }
    await addFulfilledQuantities(trx, ctx, unfulfilled);
    const levels = await moveStock(trx, ctx, [...moves.values()]);
    await updateOrderState(trx, ctx, orderId, { status: 'cancelled', fulfillment_status: fulfillmentStatusOf(lines) });

    const [cancelled] = await loadOrders(trx, ctx, [orderId]);
    const fulfillments = await loadFulfillments(trx, ctx, pending.ids);
    await emitEvents(trx, ctx.merchantId, [
      { type: 'order.cancelled', locationId: cancelled.fulfillment_location_id, object: cancelled },
      ...fulfillments.map((f) => ({ type: 'fulfillment.updated' as const, locationId: f.fulfillment_location_id, object: f })),
      ...inventoryUpdated(levels.values()),
    ]);
    return cancelled;
  });
}

export const listOrders = (ctx: Ctx, page: PageRequest, filters: OrderFilters) => selectOrderPage(ctx.db, ctx, page, filters);

/** One order; another merchant's, or one at a location hidden from the key, is not found. */
export const getOrder = async (ctx: Ctx, id: string): Promise<JsonText<Order>> => found(await visibleOrder(ctx.db, ctx, id), 'order');
