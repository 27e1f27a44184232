// Operator webhook routes: endpoint records, secret rotation, delivery log, resend and test.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { badCursor, DEFAULT_LIMIT, listRoute, PageQuery, positionCursor } from '../http/paging.ts';
import { canonicalJson } from '../http/serialize.ts';
import { Many, One, Uuid, problems } from '../http/schemas.ts';
import { AttemptSchema, DeliverySchema, NewEndpointSchema, EndpointSchema, OP_LIST, tags } from './schemas.ts';
import { EndpointPatch } from '../modules/webhook-endpoints/schemas.ts';
import * as endpoints from '../modules/webhook-endpoints/service.ts';
import { merchantCtx, operatorRoute } from './route.ts';

const strict = { additionalProperties: false } as const;
// The lists page through listRoute (or, for attempts, a position cursor), which take their params schema as written.
const M = Type.Object({ m: Uuid() });
const ME = Type.Object({ m: Uuid(), e: Uuid() });
const MED = Type.Object({ m: Uuid(), e: Uuid(), d: Uuid() });
const PagingOnly = Type.Object({ limit: Type.Optional(PageQuery.limit), cursor: Type.Optional(PageQuery.cursor) }, strict);

const routes: FastifyPluginAsyncTypebox = async (app) => {
  const allowPrivate = app.config.webhookAllowPrivateUrls;

  listRoute(
    app,
    '/merchants/:m/webhook-endpoints',
    {
      schema: {
        operationId: 'listWebhookEndpoints',
        summary: 'List webhook endpoints',
        description: "The merchant's webhook endpoints, ordered by `(updated_at, id)` ascending like every list: a changed endpoint moves to the end.",
        tags,
        response: { 200: Many(EndpointSchema, 'A page of webhook endpoints.'), ...problems(...OP_LIST) },
        params: M,
        querystring: PagingOnly,
      },
    },
    (req, page) => endpoints.listEndpointPage(merchantCtx(req), page),
  );
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
        querystring: PagingOnly,
      },
    },
    (req, page) => endpoints.listDeliveries(merchantCtx(req), req.params.e, page),
  );
  app.get(
    '/merchants/:m/webhook-endpoints/:e/deliveries/:d/attempts',
    {
      schema: {
        operationId: 'listWebhookAttempts',
        summary: 'List the attempts of a delivery',
        description: 'Every attempt of the delivery, oldest first (by attempt number).',
        tags,
        response: { 200: Many(AttemptSchema, 'A page of attempts.'), ...problems(...OP_LIST) },
        params: MED,
        querystring: PagingOnly,
      },
    },
    async (req) => {
      const { limit = DEFAULT_LIMIT, cursor } = req.query;
      // Bound to this delivery like every cursor to its route and filters; the position is an attempt number.
      const paging = positionCursor(app.secret, `${req.routeOptions.url}|${canonicalJson(req.params)}`, { cursor });
      const after = paging.position === null ? 0 : Number(paging.position);
      if (!Number.isSafeInteger(after) || after < 0) throw badCursor();
      const { items, more } = await endpoints.listAttemptPage(merchantCtx(req), req.params.e, req.params.d, after, limit);
      const next_cursor = more ? paging.next(String(items[items.length - 1].attempt)) : null;
      return { data: items, request_id: req.id, meta: { limit, next_cursor } };
    },
  );
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
