// GET /fulfillments, GET /fulfillments/:id, POST /fulfillments, POST /fulfillments/:id/tracking.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ctxOf } from '../../http/context.ts';
import { idempotentRoute } from '../../http/idempotency.ts';
import { PageQuery, pageRequest } from '../../http/paging.ts';
import { Enum, GET_ERRORS, IDEMPOTENT_ERRORS, IdParams, LIST_ERRORS, Many, Nullable, One, Timestamp, Uuid, component, problems } from '../../http/schemas.ts';
import { attachTracking, createFulfillment, getFulfillment, listFulfillments } from './service.ts';

const Text = Nullable(Type.String());
const Label = Type.String({ minLength: 1, maxLength: 255 });
export const FulfillmentSchema = component('Fulfillment', Type.Object({
  id: Uuid(),
  merchant_order_id: Uuid(),
  fulfillment_location_id: Uuid(),
  status: component('FulfillmentStatus', Enum(['pending', 'shipped', 'cancelled'], { description: 'Attaching tracking makes it shipped.' })),
  carrier_name: Text,
  service_level: Text,
  tracking: Nullable(component('Tracking', Type.Object({ tracking_number: Type.String(), tracking_url: Text, carrier_name: Text, service_level: Text }))),
  items: Type.Array(component('FulfillmentItem', Type.Object({ merchant_order_item_id: Uuid(), quantity: Type.Integer() }))),
  created_at: Timestamp(),
  updated_at: Timestamp(),
}));

const ListQuery = Type.Object(
  {
    status: Type.Optional(Enum(['pending', 'shipped', 'cancelled'], { description: 'Only fulfillments in this status.' })),
    updated_after: Type.Optional(PageQuery.updated_after),
    limit: Type.Optional(PageQuery.limit),
    cursor: Type.Optional(PageQuery.cursor),
  },
  { additionalProperties: false },
);

const CreateBody = Type.Object(
  {
    merchant_order_id: Uuid('The order (from the orders API).'),
    items: Type.Array(
      Type.Object(
        {
          merchant_order_item_id: Uuid('A line item id of that order.'),
          quantity: Type.Integer({ minimum: 1, maximum: 1_000_000 }),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: 250 },
    ),
    carrier_name: Type.Optional(Label),
    service_level: Type.Optional(Label),
  },
  { additionalProperties: false },
);

const TrackingBody = Type.Object(
  {
    tracking_number: Type.String({ minLength: 1, maxLength: 255 }),
    tracking_url: Type.Optional(Type.String({ format: 'uri', pattern: '^[Hh][Tt][Tt][Pp][Ss]?://', maxLength: 2048, description: 'Public http(s) tracking page.' })),
    carrier_name: Type.Optional(Label),
    service_level: Type.Optional(Label),
  },
  { additionalProperties: false },
);

const routes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/fulfillments',
    {
      config: { scope: 'fulfillments.read' },
      schema: {
        operationId: 'listFulfillments',
        tags: ['Fulfillments'],
        summary: 'List fulfillments',
        description: 'Fulfillments with tracking and items, ordered by (updated_at, id). A location-restricted key sees only fulfillments of its locations.',
        querystring: ListQuery,
        response: { 200: Many(FulfillmentSchema, 'A page of fulfillments.'), ...problems(...LIST_ERRORS) },
      },
    },
    async (req) => {
      const page = pageRequest(app.secret, '/fulfillments', req.query);
      const { items, meta } = await listFulfillments(ctxOf(req), page, req.query);
      return { data: items, request_id: req.id, meta };
    },
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
        body: CreateBody,
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
