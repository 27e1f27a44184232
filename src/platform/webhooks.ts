// Operator webhook routes: endpoint records, secret rotation, delivery log, resend and test.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { badCursor, cursorRoute, DEFAULT_LIMIT, listRoute, PageQuery, PageQueryFields, positionCursor } from '../http/paging.ts';
import { ActionBody, Many, One, problems } from '../http/schemas.ts';
import { AttemptSchema, DeliverySchema, NewEndpointSchema, EndpointSchema, OP_LIST, tags } from './schemas.ts';
import { EndpointPatch } from '../modules/webhook-endpoints/schemas.ts';
import * as endpoints from '../modules/webhook-endpoints/service.ts';
import { idParam, merchantCtx, operatorRoute } from './route.ts';

const strict = { additionalProperties: false } as const;
// The lists page through listRoute (or, for attempts, a position cursor), which take their params schema as written.
const M = Type.Object({ merchant_id: idParam('merchant_id') });
const ME = Type.Object({ ...M.properties, endpoint_id: idParam('endpoint_id') });
const MED = Type.Object({ ...ME.properties, delivery_id: idParam('delivery_id') });
// The endpoint and delivery lists take `updated_after` like every list (contract §4); the attempts
// list is ordered by attempt number, not by updated_at, and takes only the paging.
const Paging = Type.Object(PageQueryFields, strict);
const PagingOnly = Type.Object({ limit: Type.Optional(PageQuery.limit), cursor: Type.Optional(PageQuery.cursor) }, strict);

const routes: FastifyPluginAsyncTypebox = async (app) => {
  const allowPrivate = app.config.webhookAllowPrivateUrls;

  listRoute(
    app,
    '/merchants/:merchant_id/webhook-endpoints',
    {
      schema: {
        operationId: 'listWebhookEndpoints',
        summary: 'List webhook endpoints',
        description: "The merchant's webhook endpoints, ordered by `(updated_at, id)` ascending like every list: a changed endpoint moves to the end.",
        tags,
        response: { 200: Many(EndpointSchema, 'A page of webhook endpoints.'), ...problems(...OP_LIST) },
        params: M,
        querystring: Paging,
      },
    },
    (req, page, query) => endpoints.listEndpointPage(merchantCtx(req), page, query.updated_after),
  );
  operatorRoute(app, 'GET', '/merchants/:merchant_id/webhook-endpoints/:endpoint_id', {
    operationId: 'getWebhookEndpoint',
    summary: 'Get a webhook endpoint with its signing secret',
    answer: One(NewEndpointSchema, 'The endpoint with its signing secret.'),
    run: async (req) => {
      const ctx = merchantCtx(req);
      return { ...(await endpoints.getEndpoint(ctx, req.params.endpoint_id)), ...(await endpoints.revealSigningSecret(ctx, req.params.endpoint_id)) };
    },
  });
  operatorRoute(app, 'PATCH', '/merchants/:merchant_id/webhook-endpoints/:endpoint_id', {
    operationId: 'updateWebhookEndpoint',
    summary: 'Update a webhook endpoint (url, events, location_ids, description, status)',
    body: EndpointPatch,
    answer: One(EndpointSchema, 'The endpoint after the change.'),
    run: (req) => endpoints.updateEndpoint(merchantCtx(req), req.params.endpoint_id, req.body, allowPrivate),
  });
  operatorRoute(app, 'POST', '/merchants/:merchant_id/webhook-endpoints/:endpoint_id/rotate-secret', {
    operationId: 'rotateWebhookSecret',
    summary: 'Rotate the signing secret (the old one keeps signing beside it for 24 h)',
    description:
      'The new secret signs from now on; the secret it replaces signs beside it for 24 h. A delivery carries at most two signatures: rotating again within the 24 h ends the earlier overlap (the secret replaced before stops signing at once).',
    body: ActionBody,
    emptyBodyOptional: true,
    answer: One(NewEndpointSchema, 'The endpoint with its new signing secret.'),
    run: (req) => endpoints.rotateSigningSecret(merchantCtx(req), req.params.endpoint_id),
  });
  listRoute(
    app,
    '/merchants/:merchant_id/webhook-endpoints/:endpoint_id/deliveries',
    {
      schema: {
        operationId: 'listWebhookDeliveries',
        summary: 'List deliveries of a webhook endpoint',
        tags,
        response: { 200: Many(DeliverySchema, 'A page of deliveries.'), ...problems(...OP_LIST) },
        params: ME,
        querystring: Paging,
      },
    },
    (req, page, query) => endpoints.listDeliveries(merchantCtx(req), req.params.endpoint_id, page, query.updated_after),
  );
  app.get(
    '/merchants/:merchant_id/webhook-endpoints/:endpoint_id/deliveries/:delivery_id/attempts',
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
      const paging = positionCursor(app.secret, cursorRoute(req), { cursor });
      const after = paging.position === null ? 0 : Number(paging.position);
      if (!Number.isSafeInteger(after) || after < 0) throw badCursor();
      const { items, more } = await endpoints.listAttemptPage(merchantCtx(req), req.params.endpoint_id, req.params.delivery_id, after, limit);
      const next_cursor = more ? paging.next(String(items[items.length - 1].attempt)) : null;
      return { data: items, request_id: req.id, meta: { limit, next_cursor } };
    },
  );
  operatorRoute(app, 'POST', '/merchants/:merchant_id/webhook-endpoints/:endpoint_id/deliveries/:delivery_id/resend', {
    operationId: 'resendWebhookDelivery',
    summary: 'Resend a delivery (a new delivery of the same event)',
    description:
      "409 `invalid_state` when the endpoint no longer takes the event: its type is no longer in the endpoint's `events`, or its location no longer in its `location_ids`.",
    body: ActionBody,
    emptyBodyOptional: true,
    answer: One(DeliverySchema, 'The new delivery.'),
    extraErrors: ['invalid_state'],
    run: (req) => endpoints.resendDelivery(merchantCtx(req), req.params.endpoint_id, req.params.delivery_id),
  });
  operatorRoute(app, 'POST', '/merchants/:merchant_id/webhook-endpoints/:endpoint_id/test', {
    operationId: 'testWebhookEndpoint',
    summary: 'Send a ping event to this endpoint',
    body: ActionBody,
    emptyBodyOptional: true,
    answer: One(DeliverySchema, "The ping's delivery."),
    extraErrors: ['invalid_state'],
    run: (req) => endpoints.sendTestEvent(merchantCtx(req), req.params.endpoint_id),
  });
};

export default routes;
