// GET /inventory and POST /inventory/adjustments.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { idempotentRoute } from '../../http/idempotency.ts';
import { getById, listOf } from '../../http/read-routes.ts';
import { IDEMPOTENT_ERRORS, RequestId, component, problems } from '../../http/schemas.ts';
import { AdjustmentBody, InventoryListQuery, InventoryRowSchema } from './schemas.ts';
import { adjustInventory, getInventoryRow, listInventory } from './service.ts';

const routes: FastifyPluginAsyncTypebox = async (app) => {
  const resource = { path: '/inventory', scope: 'inventory.read', tag: 'Inventory', item: InventoryRowSchema };
  listOf(
    app,
    resource,
    {
      operationId: 'listInventory',
      summary: 'List inventory rows (one per variant and location)',
      description:
        "Rows of the key's locations, ordered by (updated_at, id). A `location_id` outside the key's locations answers 403 `location_forbidden`; one that is not the merchant's answers 422.",
      querystring: InventoryListQuery,
      answer: 'A page of inventory rows.',
      extraErrors: ['location_forbidden'],
    },
    listInventory,
  );
  getById(
    app,
    resource,
    {
      operationId: 'getInventoryRow',
      summary: 'Get an inventory row',
      description: "A row at a location outside the key's locations is 404, as an unknown one.",
      answer: 'The inventory row.',
    },
    getInventoryRow,
  );

  idempotentRoute(
    app,
    'POST',
    '/inventory/adjustments',
    {
      scope: 'inventory.adjust',
      schema: {
        operationId: 'adjustInventory',
        tags: ['Inventory'],
        summary: 'Apply inventory adjustments',
        description:
          "Changes on_hand by each row's signed `adjustment`, atomically: if any row names an unknown or ambiguous SKU, an unknown variant or location, or would leave on_hand negative, nothing is applied (422 naming the rows). A location outside the key's locations refuses the batch (403 `location_forbidden`). Answers the resulting rows in request order. Supports `Idempotency-Key`.",
        body: AdjustmentBody,
        response: {
          200: component(
            'InventoryAdjustmentResult',
            Type.Object(
              { data: Type.Array(InventoryRowSchema), request_id: RequestId },
              { description: 'The resulting inventory rows, in request order (or, with `Idempotent-Replayed: true`, the stored answer).' },
            ),
          ),
          ...problems(...IDEMPOTENT_ERRORS, 'location_forbidden'),
        },
      },
    },
    async (ctx, { body }) => ({ status: 200, data: await adjustInventory(ctx, body.adjustments) }),
  );
};

export default routes;
