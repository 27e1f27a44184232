// Operator routes for orders: storefront intake and cancellation (contract §9).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ActionBody, One } from '../http/schemas.ts';
import { OrderSchema } from '../modules/orders/records/schemas.ts';
import { OrderIntakeBody } from '../modules/orders/schemas.ts';
import { cancelOrder, createOrder } from '../modules/orders/service.ts';
import { merchantCtx, operatorCreate, operatorRoute } from './route.ts';

const routes: FastifyPluginAsyncTypebox = async (app) => {
  operatorCreate(app, '/merchants/:merchant_id/orders', {
    operationId: 'createOrder',
    summary: 'Storefront order intake (commits inventory, emits order.created)',
    description:
      "Commits the lines' quantities at the location and emits `order.created`. `Location` is the order's GET in the integration API (`/api/integrations/v1/orders/:id`), read with an API key holding `orders.read`: the operator API has no order reads.",
    body: OrderIntakeBody,
    answer: One(OrderSchema, 'The order.'),
    location: (order) => `/api/integrations/v1/orders/${order.id}`,
    extraErrors: ['insufficient_inventory'],
    run: (req) => createOrder(merchantCtx(req), req.body),
  });

  operatorRoute(app, 'POST', '/merchants/:merchant_id/orders/:order_id/cancel', {
    operationId: 'cancelOrder',
    summary: 'Cancel an order (releases committed stock, cancels pending fulfillments)',
    body: ActionBody,
    emptyBodyOptional: true,
    answer: One(OrderSchema, 'The cancelled order.'),
    extraErrors: ['invalid_state'],
    run: (req) => cancelOrder(merchantCtx(req), req.params.order_id),
  });
};

export default routes;
