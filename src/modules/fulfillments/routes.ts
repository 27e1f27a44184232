// GET /fulfillments, GET /fulfillments/:id, POST /fulfillments, POST /fulfillments/:id/tracking.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ctxOf } from '../../http/context.ts';
import { idempotentRoute } from '../../http/idempotency.ts';
import { listRoute } from '../../http/paging.ts';
import { GET_ERRORS, IDEMPOTENT_ERRORS, IdParams, LIST_ERRORS, Many, One, problems } from '../../http/schemas.ts';
import { FulfillmentSchema } from '../orders/records/schemas.ts';
import { FulfillmentCreateBody, FulfillmentListQuery, TrackingBody } from './schemas.ts';
import { attachTracking, createFulfillment, getFulfillment, listFulfillments } from './service.ts';

const routes: FastifyPluginAsyncTypebox = async (app) => {
  listRoute(
    app,
    '/fulfillments',
    {
      config: { scope: 'fulfillments.read' },
      schema: {
        operationId: 'listFulfillments',
        tags: ['Fulfillments'],
        summary: 'List fulfillments',
        description: 'Fulfillments with tracking and items, ordered by (updated_at, id). A location-restricted key sees only fulfillments of its locations.',
        querystring: FulfillmentListQuery,
        response: { 200: Many(FulfillmentSchema, 'A page of fulfillments.'), ...problems(...LIST_ERRORS) },
      },
    },
    (req, page, query) => listFulfillments(ctxOf(req), page, query),
  );

  app.get(
    '/fulfillments/:id',
    {
      config: { scope: 'fulfillments.read' },
      schema: { operationId: 'getFulfillment', tags: ['Fulfillments'], summary: 'Get a fulfillment', params: IdParams, response: { 200: One(FulfillmentSchema, 'The fulfillment.'), ...problems(...GET_ERRORS) } },
    },
    async (req) => ({ data: await getFulfillment(ctxOf(req), req.params.id), request_id: req.id }),
  );

  idempotentRoute(app, 'POST', '/fulfillments', {
      scope: 'fulfillments.create',
      schema: {
        operationId: 'createFulfillment',
        tags: ['Fulfillments'],
        summary: 'Create a fulfillment',
        description:
          'Fulfils items of an open order: quantities leave on_hand and committed at the order\'s location, and the order closes when every item is fulfilled. A quantity above what is still fulfillable is 422 naming the item (several entries for one item count together); an order that is not open is 409 `invalid_state`. Supports `Idempotency-Key`.',
        body: FulfillmentCreateBody,
        response: { 201: One(FulfillmentSchema, 'The fulfillment created (or, with `Idempotent-Replayed: true`, the stored answer).'), ...problems(...IDEMPOTENT_ERRORS, 'invalid_state') },
      },
    },
    async (ctx, { body }) => {
      const data = await createFulfillment(ctx, body);
      return { status: 201, data, location: `/fulfillments/${data.id}` };
    },
  );

  idempotentRoute(app, 'POST', '/fulfillments/:id/tracking', {
      scope: 'fulfillments.tracking.write',
      schema: {
        operationId: 'attachTracking',
        tags: ['Fulfillments'],
        summary: 'Attach or replace tracking',
        description: 'Sets the tracking (replacing any earlier one) and marks the fulfillment shipped. A cancelled fulfillment is 409 `invalid_state`. Supports `Idempotency-Key`.',
        params: IdParams,
        body: TrackingBody,
        response: { 200: One(FulfillmentSchema, 'The fulfillment, now shipped (or, with `Idempotent-Replayed: true`, the stored answer).'), ...problems(...IDEMPOTENT_ERRORS, 'not_found', 'invalid_state') },
      },
    },
    async (ctx, { body, params }) => ({ status: 200, data: await attachTracking(ctx, params.id, body) }),
  );
};

export default routes;
