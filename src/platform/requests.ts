// Operator lookup of an integration-API request by the X-Request-Id an integrator reports.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { RequestId, Uuid, component, problems } from '../http/schemas.ts';
import { OP_READ, tags } from './schemas.ts';
import { LoggedRequest } from '../modules/request-log/schemas.ts';
import { findRequestForOperator } from '../modules/request-log/service.ts';

const routes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/requests/:request_id',
    {
      schema: {
        operationId: 'findRequest',
        summary: 'Find an integration-API request by its X-Request-Id',
        tags,
        params: Type.Object({ request_id: Uuid() }),
        response: {
          200: Type.Object(
            { data: component('LoggedRequest', Type.Object({ merchant_id: Uuid(), ...LoggedRequest.properties })), request_id: RequestId },
            { description: 'The logged request.' },
          ),
          ...problems(...OP_READ),
        },
      },
    },
    async (req) => {
      await app.requestLog.flush();
      return { data: await findRequestForOperator(app.db, req.params.request_id), request_id: req.id };
    },
  );
};

export default routes;
