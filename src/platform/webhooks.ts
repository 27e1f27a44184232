// Operator webhook routes: endpoint records, secret rotation, delivery log, resend and test.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { operatorCtx } from '../http/context.ts';
import { listRoute, PageQuery } from '../http/paging.ts';
import { Many, One, Uuid, problems } from '../http/schemas.ts';
import {
  AttemptListSchema,
  DeliverySchema,
  EndpointListSchema,
  NewEndpointSchema,
  EndpointSchema,
  OP_ACTION,
  OP_LIST,
  OP_READ,
  OP_WRITE,
  tags,
} from './schemas.ts';
import { EndpointPatch } from '../modules/webhook-endpoints/schemas.ts';
import {
  getEndpoint,
  listAttempts,
  listDeliveries,
  listEndpoints,
  resendDelivery,
  revealSigningSecret,
  rotateSigningSecret,
  sendTestEvent,
  updateEndpoint,
} from '../modules/webhook-endpoints/service.ts';

const strict = { additionalProperties: false } as const;
const ME = Type.Object({ m: Uuid(), e: Uuid() });
const MED = Type.Object({ m: Uuid(), e: Uuid(), d: Uuid() });

const routes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = (req: { server: FastifyInstance; params: { m: string } }) => operatorCtx(req, req.params.m);
  const allowPrivate = app.config.webhookAllowPrivateUrls;

  app.get(
    '/merchants/:m/webhook-endpoints',
    {
      schema: {
        operationId: 'listWebhookEndpoints',
        summary: 'List webhook endpoints',
        tags,
        response: { 200: EndpointListSchema, ...problems(...OP_READ) },
        params: Type.Object({ m: Uuid() }),
      },
    },
    async (req) => ({
      data: await listEndpoints(ctx(req)),
      request_id: req.id,
    }),
  );
  app.get(
    '/merchants/:m/webhook-endpoints/:e',
    {
      schema: {
        operationId: 'getWebhookEndpoint',
        summary: 'Get a webhook endpoint with its signing secret',
        tags,
        response: { 200: One(NewEndpointSchema, 'The endpoint with its signing secret.'), ...problems(...OP_READ) },
        params: ME,
      },
    },
    async (req) => ({
      data: { ...(await getEndpoint(ctx(req), req.params.e)), ...(await revealSigningSecret(ctx(req), req.params.e)) },
      request_id: req.id,
    }),
  );
  app.patch(
    '/merchants/:m/webhook-endpoints/:e',
    {
      schema: {
        operationId: 'updateWebhookEndpoint',
        summary: 'Update a webhook endpoint (url, events, location_ids, description, status)',
        tags,
        response: { 200: One(EndpointSchema, 'The endpoint after the change.'), ...problems(...OP_WRITE) },
        params: ME,
        body: EndpointPatch,
      },
    },
    async (req) => ({
      data: await updateEndpoint(ctx(req), req.params.e, req.body, allowPrivate),
      request_id: req.id,
    }),
  );
  app.post(
    '/merchants/:m/webhook-endpoints/:e/rotate-secret',
    {
      schema: {
        operationId: 'rotateWebhookSecret',
        summary: 'Rotate the signing secret (the old one keeps signing beside it for 24 h)',
        tags,
        response: { 200: One(NewEndpointSchema, 'The endpoint with its new signing secret.'), ...problems(...OP_ACTION) },
        params: ME,
      },
    },
    async (req) => ({
      data: await rotateSigningSecret(ctx(req), req.params.e),
      request_id: req.id,
    }),
  );
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
    (req, page) => listDeliveries(ctx(req), req.params.e, page),
  );
  app.get(
    '/merchants/:m/webhook-endpoints/:e/deliveries/:d/attempts',
    {
      schema: {
        operationId: 'listWebhookAttempts',
        summary: 'List the attempts of a delivery',
        tags,
        response: { 200: AttemptListSchema('Every attempt of the delivery, oldest first.'), ...problems(...OP_READ) },
        params: MED,
      },
    },
    async (req) => ({
      data: await listAttempts(ctx(req), req.params.e, req.params.d),
      request_id: req.id,
    }),
  );
  app.post(
    '/merchants/:m/webhook-endpoints/:e/deliveries/:d/resend',
    {
      schema: {
        operationId: 'resendWebhookDelivery',
        summary: 'Resend a delivery (a new delivery of the same event)',
        tags,
        response: { 200: One(DeliverySchema, 'The new delivery.'), ...problems(...OP_ACTION) },
        params: MED,
      },
    },
    async (req) => ({
      data: await resendDelivery(ctx(req), req.params.e, req.params.d),
      request_id: req.id,
    }),
  );
  app.post(
    '/merchants/:m/webhook-endpoints/:e/test',
    {
      schema: {
        operationId: 'testWebhookEndpoint',
        summary: 'Send a ping event to this endpoint',
        tags,
        response: { 200: One(DeliverySchema, "The ping's delivery."), ...problems(...OP_ACTION) },
        params: ME,
      },
    },
    async (req) => ({
      data: await sendTestEvent(ctx(req), req.params.e),
      request_id: req.id,
    }),
  );
};

export default routes;
