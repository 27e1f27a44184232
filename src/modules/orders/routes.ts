// GET /orders and GET /orders/:id.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { getById, listOf, type Resource } from '../../http/read-routes.ts';
import { OrderSchema } from './records/schemas.ts';
import { OrderListQuery } from './schemas.ts';
import { getOrder, listOrders } from './service.ts';

const orders: Resource<typeof OrderSchema> = { path: '/orders', scope: 'orders.read', tag: 'Orders', item: OrderSchema };

const routes: FastifyPluginAsyncTypebox = async (app) => {
  listOf(
    app,
    orders,
    {
      operationId: 'listOrders',
      summary: 'List orders',
      description: 'Orders with line items and fulfillment summary, ordered by (updated_at, id). A location-restricted key sees only orders of its locations.',
      querystring: OrderListQuery,
      answer: 'A page of orders.',
    },
    listOrders,
  );
  getById(app, orders, { operationId: 'getOrder', summary: 'Get an order', answer: 'The order.' }, getOrder);
};

export default routes;
