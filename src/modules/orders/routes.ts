// GET /orders and GET /orders/:id.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { readRoutes } from '../../http/read-routes.ts';
import { OrderSchema } from './records/schemas.ts';
import { OrderListQuery } from './schemas.ts';
import { getOrder, listOrders } from './service.ts';

const routes: FastifyPluginAsyncTypebox = async (app) => {
  readRoutes(app, {
    noun: 'order',
    item: OrderSchema,
    list: listOrders,
    listQuery: OrderListQuery,
    listDescription:
      'Orders with line items and fulfillment summary, ordered by (updated_at, id). A location-restricted key sees only orders of its locations.',
    get: getOrder,
  });
};

export default routes;
