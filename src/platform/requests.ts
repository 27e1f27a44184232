// Operator lookup of an integration-API request by the X-Request-Id an integrator reports.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { RequestId, Uuid, component } from '../http/schemas.ts';
import { LoggedRequest } from '../modules/request-log/schemas.ts';
import { findRequestForOperator } from '../modules/request-log/service.ts';
import { operatorRoute } from './route.ts';

const OperatorLoggedRequest = component('LoggedRequest', Type.Object({ merchant_id: Uuid(), ...LoggedRequest.properties }));

const routes: FastifyPluginAsyncTypebox = async (app) => {
  operatorRoute(app, 'GET', '/requests/:request_id', {
    operationId: 'findRequest',
    summary: 'Find an integration-API request by its X-Request-Id',
    answer: Type.Object({ data: OperatorLoggedRequest, request_id: RequestId }, { description: 'The logged request.' }),
    run: async (req) => {
      await app.requestLog.flush();
      return findRequestForOperator(app.db, req.params.request_id);
    },
  });
};

export default routes;
