// GET /orders and GET /orders/:id.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ctxOf } from '../../http/context.ts';
import { listRoute, PageQuery } from '../../http/paging.ts';
import { Enum, GET_ERRORS, IdParams, LIST_ERRORS, Many, Nullable, One, Timestamp, Uuid, component, problems } from '../../http/schemas.ts';
import { getOrder, listOrders } from './service.ts';

const Text = Nullable(Type.String());

export const OrderStatus = component('OrderStatus', Enum(['open', 'closed', 'cancelled'], { description: 'An order becomes closed when fully fulfilled.' }));
export const FulfillmentStatus = component('OrderFulfillmentStatus', Enum(['unfulfilled', 'partially_fulfilled', 'fulfilled']));

export const OrderSchema = component('Order', Type.Object({
  id: Uuid(),
  order_number: Type.Integer({ description: 'Per merchant, from 1001.' }),
  status: OrderStatus,
  fulfillment_status: FulfillmentStatus,
  fulfillment_location_id: Uuid(),
  currency: Type.String({ description: 'ISO 4217 code.' }),
  total_price: Type.Number({ description: 'Sum of price × quantity over the line items.' }),
  customer: component('Customer', Type.Object({ name: Text, email: Text, phone: Text })),
  shipping_address: component('ShippingAddress', Type.Object({
    name: Text,
    company: Text,
    address1: Text,
    address2: Text,
    city: Text,
    province: Text,
    postal_code: Text,
    country_code: Text,
    phone: Text,
  })),
  line_items: Type.Array(
    component('OrderLineItem', Type.Object({
      id: Uuid('The merchant_order_item_id to fulfil.'),
      product_id: Nullable(Uuid()),
      variant_id: Nullable(Uuid()),
      sku: Text,
      title: Type.String({ description: 'Product title at the time of the order.' }),
      variant_title: Text,
      quantity: Type.Integer(),
      fulfilled_quantity: Type.Integer({ description: 'In fulfillments that are not cancelled.' }),
      fulfillable_quantity: Type.Integer({ description: 'Still to fulfil; 0 unless the order is open.' }),
      price: Type.Number(),
    })),
  ),
  fulfillment_summary: component('FulfillmentSummary', Type.Object({
    fulfilled_quantity: Type.Integer(),
    total_quantity: Type.Integer(),
    fulfillment_ids: Type.Array(Uuid(), { description: 'Every fulfillment of the order, cancelled ones included, oldest first.' }),
  })),
  created_at: Timestamp(),
  updated_at: Timestamp(),
}));

const ListQuery = Type.Object(
  {
    status: Type.Optional(Enum(['open', 'closed', 'cancelled'], { description: 'Only orders in this status.' })),
    created_after: Type.Optional(Type.String({ format: 'date-time', description: 'Only orders created strictly after this instant.' })),
    updated_after: Type.Optional(PageQuery.updated_after),
    limit: Type.Optional(PageQuery.limit),
    cursor: Type.Optional(PageQuery.cursor),
  },
  { additionalProperties: false },
);

const routes: FastifyPluginAsyncTypebox = async (app) => {
  listRoute(
    app,
    '/orders',
    {
      config: { scope: 'orders.read' },
      schema: {
        operationId: 'listOrders',
        tags: ['Orders'],
        summary: 'List orders',
        description: 'Orders with line items and fulfillment summary, ordered by (updated_at, id). A location-restricted key sees only orders of its locations.',
        querystring: ListQuery,
        response: { 200: Many(OrderSchema, 'A page of orders.'), ...problems(...LIST_ERRORS) },
      },
    },
    (req, page, query) => listOrders(ctxOf(req), page, query),
  );

  app.get(
    '/orders/:id',
    {
      config: { scope: 'orders.read' },
      schema: { operationId: 'getOrder', tags: ['Orders'], summary: 'Get an order', params: IdParams, response: { 200: One(OrderSchema, 'The order.'), ...problems(...GET_ERRORS) } },
    },
    async (req) => ({ data: await getOrder(ctxOf(req), req.params.id), request_id: req.id }),
  );
};

export default routes;
