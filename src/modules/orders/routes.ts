// GET /orders and GET /orders/:id.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ctxOf } from '../../http/context.ts';
import { listRoute } from '../../http/paging.ts';
import { GET_ERRORS, IdParams, LIST_ERRORS, Many, One, problems } from '../../http/schemas.ts';
import { OrderSchema } from './records/schemas.ts';
import { OrderListQuery } from './schemas.ts';
import { getOrder, listOrders } from './service.ts';

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
        querystring: OrderListQuery,
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
