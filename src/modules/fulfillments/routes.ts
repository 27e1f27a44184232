// GET /fulfillments, GET /fulfillments/:id, POST /fulfillments, POST /fulfillments/:id/tracking.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { idempotentRoute } from '../../http/idempotency.ts';
import { readRoutes } from '../../http/read-routes.ts';
import { IDEMPOTENT_ERRORS, IdParams, One, problems } from '../../http/schemas.ts';
import { FulfillmentSchema } from '../orders/records/schemas.ts';
import { FulfillmentCreateBody, FulfillmentListQuery, TrackingBody } from './schemas.ts';
import { attachTracking, createFulfillment, getFulfillment, listFulfillments } from './service.ts';

const routes: FastifyPluginAsyncTypebox = async (app) => {
  readRoutes(app, {
    noun: 'fulfillment',
    item: FulfillmentSchema,
    list: listFulfillments,
    listQuery: FulfillmentListQuery,
    listDescription: 'Fulfillments with tracking and items, ordered by (updated_at, id). A location-restricted key sees only fulfillments of its locations.',
    get: getFulfillment,
  });

  idempotentRoute(
    app,
    'POST',
    '/fulfillments',
    {
      scope: 'fulfillments.create',
      schema: {
        operationId: 'createFulfillment',
        tags: ['Fulfillments'],
        summary: 'Create a fulfillment',
        description:
          "Fulfils items of an open order: quantities leave on_hand and committed at the order's location, and the order closes when every item is fulfilled. A quantity above what is still fulfillable is 422 naming the item (several entries for one item count together); an order that is not open is 409 `invalid_state`. Supports `Idempotency-Key`.",
        body: FulfillmentCreateBody,
        response: {
          201: One(FulfillmentSchema, 'The fulfillment created (or, with `Idempotent-Replayed: true`, the stored answer).'),
          ...problems(...IDEMPOTENT_ERRORS, 'invalid_state'),
        },
      },
    },
    async (ctx, { body }) => {
      const data = await createFulfillment(ctx, body);
      return { status: 201, data, location: `/fulfillments/${data.id}` };
    },
  );

  idempotentRoute(
    app,
    'POST',
    '/fulfillments/:id/tracking',
    {
      scope: 'fulfillments.tracking.write',
      schema: {
        operationId: 'attachTracking',
        tags: ['Fulfillments'],
        summary: 'Attach or replace tracking',
        description:
          'Sets the tracking (replacing any earlier one) and marks the fulfillment shipped. A cancelled fulfillment is 409 `invalid_state`. Supports `Idempotency-Key`.',
        params: IdParams,
        body: TrackingBody,
        response: {
          200: One(FulfillmentSchema, 'The fulfillment, now shipped (or, with `Idempotent-Replayed: true`, the stored answer).'),
          ...problems(...IDEMPOTENT_ERRORS, 'not_found', 'invalid_state'),
        },
      },
    },
    async (ctx, { body, params }) => ({ status: 200, data: await attachTracking(ctx, params.id, body) }),
  );
};

export default routes;
