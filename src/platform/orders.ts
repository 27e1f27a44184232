// Operator routes for orders: storefront intake and cancellation (contract §9).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { operatorCtx } from '../http/context.ts';
import { One, Uuid, problems } from '../http/schemas.ts';
import { OrderSchema } from '../modules/orders/records/schemas.ts';
import { OrderIntakeBody } from '../modules/orders/schemas.ts';
import { cancelOrder, createOrder } from '../modules/orders/service.ts';
import { OP_WRITE, tags } from './schemas.ts';

const routes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/merchants/:m/orders',
    {
      schema: {
        operationId: 'createOrder',
        summary: 'Storefront order intake (commits inventory, emits order.created)',
        tags,
        response: { 201: One(OrderSchema, 'The order.'), ...problems(...OP_WRITE, 'insufficient_inventory') },
        params: Type.Object({ m: Uuid() }),
        body: OrderIntakeBody,
      },
    },
    async (req, reply) => {
      const order = await createOrder(operatorCtx(req, req.params.m), req.body);
      reply.code(201).header('Location', `/api/integrations/v1/orders/${order.id}`);
      return { data: order, request_id: req.id };
    },
  );

  app.post(
    '/merchants/:m/orders/:o/cancel',
    {
      schema: {
        operationId: 'cancelOrder',
        summary: 'Cancel an order (releases committed stock, cancels pending fulfillments)',
        tags,
        response: { 200: One(OrderSchema, 'The cancelled order.'), ...problems(...OP_WRITE, 'invalid_state') },
        params: Type.Object({ m: Uuid(), o: Uuid() }),
        body: Type.Object({}, { additionalProperties: false }),
      },
    },
    async (req) => ({ data: await cancelOrder(operatorCtx(req, req.params.m), req.params.o), request_id: req.id }),
  );
};

export default routes;
