// GET /inventory and POST /inventory/adjustments.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ctxOf } from '../../http/context.ts';
import { idempotentRoute } from '../../http/idempotency.ts';
import { PageQuery, pageRequest } from '../../http/paging.ts';
import { IDEMPOTENT_ERRORS, LIST_ERRORS, Many, Nullable, RequestId, Timestamp, Uuid, component, problems } from '../../http/schemas.ts';
import { adjustInventory, listInventory } from './service.ts';

export const InventoryRowSchema = component('InventoryRow', Type.Object({
  id: Uuid(),
  variant_id: Uuid(),
  product_id: Uuid(),
  sku: Nullable(Type.String()),
  fulfillment_location_id: Uuid(),
  on_hand: Type.Integer(),
  committed: Type.Integer({ description: 'Held by open orders, not yet fulfilled.' }),
  available: Type.Integer({ description: 'on_hand - committed; may be negative for continue-policy variants.' }),
  updated_at: Timestamp(),
}));

const ListQuery = Type.Object(
  {
    variant_id: Type.Optional(Uuid('Only rows of this variant.')),
    sku: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'Only rows of variants with this SKU.' })),
    location_id: Type.Optional(Uuid('Only rows at this fulfillment location (must be one of the key\'s locations).')),
    updated_after: Type.Optional(PageQuery.updated_after),
    limit: Type.Optional(PageQuery.limit),
    cursor: Type.Optional(PageQuery.cursor),
  },
  { additionalProperties: false },
);

const AdjustmentRow = Type.Object(
  {
    variant_id: Type.Optional(Uuid('The variant; or give sku.')),
    sku: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'Resolved to the merchant\'s variant with this SKU when variant_id is absent.' })),
    fulfillment_location_id: Uuid(),
    adjustment: Type.Integer({ minimum: -1_000_000, maximum: 1_000_000, description: 'Signed change of on_hand; not 0.' }),
    reason: Type.Optional(Type.String({ maxLength: 500 })),
  },
  { additionalProperties: false },
);

const AdjustmentBody = Type.Object(
  { adjustments: Type.Array(AdjustmentRow, { minItems: 1, maxItems: 100 }) },
  { additionalProperties: false },
);

const routes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/inventory',
    {
      config: { scope: 'inventory.read' },
      schema: {
        operationId: 'listInventory',
        tags: ['Inventory'],
        summary: 'List inventory rows (one per variant and location)',
        description:
          'Rows of the key\'s locations, ordered by (updated_at, id). A `location_id` outside the key\'s locations answers 403 `location_forbidden`; one that is not the merchant\'s answers 422.',
        querystring: ListQuery,
        response: { 200: Many(InventoryRowSchema, 'A page of inventory rows.'), ...problems(...LIST_ERRORS, 'location_forbidden') },
      },
    },
    async (req) => {
      const page = pageRequest(app.secret, '/inventory', req.query);
      const { items, meta } = await listInventory(ctxOf(req), page, req.query);
      return { data: items, request_id: req.id, meta };
    },
  );

  idempotentRoute(app, 'POST', '/inventory/adjustments', {
      scope: 'inventory.adjust',
      schema: {
        operationId: 'adjustInventory',
        tags: ['Inventory'],
        summary: 'Apply inventory adjustments',
        description:
          'Changes on_hand by each row\'s signed `adjustment`, atomically: if any row names an unknown or ambiguous SKU, an unknown variant or location, or would leave on_hand negative, nothing is applied (422 naming the rows). A location outside the key\'s locations refuses the batch (403 `location_forbidden`). Answers the resulting rows in request order. Supports `Idempotency-Key`.',
        body: AdjustmentBody,
        response: {
          200: component('InventoryAdjustmentResult', Type.Object({ data: Type.Array(InventoryRowSchema), request_id: RequestId }, { description: 'The resulting inventory rows, in request order (or, with `Idempotent-Replayed: true`, the stored answer).' })),
          ...problems(...IDEMPOTENT_ERRORS, 'location_forbidden'),
        },
      },
    },
    async (ctx, { body }) => ({ status: 200, data: await adjustInventory(ctx, body.adjustments) }),
  );
};

export default routes;
