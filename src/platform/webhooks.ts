// Operator webhook routes: endpoint records, secret rotation, delivery log, resend and test.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { listRoute, PageQuery } from '../http/paging.ts';
import { Many, One, Uuid, problems } from '../http/schemas.ts';
import { AttemptListSchema, DeliverySchema, EndpointListSchema, NewEndpointSchema, EndpointSchema, OP_LIST, tags } from './schemas.ts';
import { EndpointPatch } from '../modules/webhook-endpoints/schemas.ts';
import * as endpoints from '../modules/webhook-endpoints/service.ts';
import { merchantCtx, operatorRoute } from './route.ts';

const strict = { additionalProperties: false } as const;
/** The deliveries list pages through listRoute, which takes its params schema as written. */
const ME = Type.Object({ m: Uuid(), e: Uuid() });

const routes: FastifyPluginAsyncTypebox = async (app) => {
  const allowPrivate = app.config.webhookAllowPrivateUrls;

  operatorRoute(app, 'GET', '/merchants/:m/webhook-endpoints', {
    operationId: 'listWebhookEndpoints',
    summary: 'List webhook endpoints',
    answer: EndpointListSchema,
    run: (req) => endpoints.listEndpoints(merchantCtx(req)),
  });
  operatorRoute(app, 'GET', '/merchants/:m/webhook-endpoints/:e', {
    operationId: 'getWebhookEndpoint',
    summary: 'Get a webhook endpoint with its signing secret',
    answer: One(NewEndpointSchema, 'The endpoint with its signing secret.'),
    run: async (req) => {
      const ctx = merchantCtx(req);
      return { ...(await endpoints.getEndpoint(ctx, req.params.e)), ...(await endpoints.revealSigningSecret(ctx, req.params.e)) };
    },
  });
  operatorRoute(app, 'PATCH', '/merchants/:m/webhook-endpoints/:e', {
    operationId: 'updateWebhookEndpoint',
    summary: 'Update a webhook endpoint (url, events, location_ids, description, status)',
    body: EndpointPatch,
    answer: One(EndpointSchema, 'The endpoint after the change.'),
    run: (req) => endpoints.updateEndpoint(merchantCtx(req), req.params.e, req.body, allowPrivate),
  });
  operatorRoute(app, 'POST', '/merchants/:m/webhook-endpoints/:e/rotate-secret', {
    operationId: 'rotateWebhookSecret',
    summary: 'Rotate the signing secret (the old one keeps signing beside it for 24 h)',
    answer: One(NewEndpointSchema, 'The endpoint with its new signing secret.'),
    run: (req) => endpoints.rotateSigningSecret(merchantCtx(req), req.params.e),
  });
  listRoute(
    app,
    '/merchants/:m/webhook-endpoints/:e/deliveries',
    {
      schema: {
        operationId: 'listWebhookDeliveries',
        summary: 'List deliveries of a webhook endpoint',
        tags,
        response: { 200: Many(DeliverySchema, 'A page of deliveries.'), ...problems(...OP_LIST) },
        params: ME,
        querystring: Type.Object({ limit: Type.Optional(PageQuery.limit), cursor: Type.Optional(PageQuery.cursor) }, strict),
      },
    },
    (req, page) => endpoints.listDeliveries(merchantCtx(req), req.params.e, page),
  );
  operatorRoute(app, 'GET', '/merchants/:m/webhook-endpoints/:e/deliveries/:d/attempts', {
    operationId: 'listWebhookAttempts',
    summary: 'List the attempts of a delivery',
    answer: AttemptListSchema('Every attempt of the delivery, oldest first.'),
    run: (req) => endpoints.listAttempts(merchantCtx(req), req.params.e, req.params.d),
  });
  operatorRoute(app, 'POST', '/merchants/:m/webhook-endpoints/:e/deliveries/:d/resend', {
    operationId: 'resendWebhookDelivery',
    summary: 'Resend a delivery (a new delivery of the same event)',
    answer: One(DeliverySchema, 'The new delivery.'),
    run: (req) => endpoints.resendDelivery(merchantCtx(req), req.params.e, req.params.d),
  });
  operatorRoute(app, 'POST', '/merchants/:m/webhook-endpoints/:e/test', {
    operationId: 'testWebhookEndpoint',
    summary: 'Send a ping event to this endpoint',
    answer: One(DeliverySchema, "The ping's delivery."),
    run: (req) => endpoints.sendTestEvent(merchantCtx(req), req.params.e),
  });
};

export default routes;
