// Operator routes: merchants, portal users, locations, vendors, tags, media assets, API keys and
// webhook endpoint records.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { operatorCtx } from '../http/context.ts';
import { One, Uuid, problems } from '../http/schemas.ts';
import { Location, MediaAsset, Tag, Vendor } from '../modules/reference/routes.ts';
import { MerchantSchema, NewApiKeySchema, ApiKeySchema, NewEndpointSchema, OP_CREATE_MERCHANT, OP_READ, OP_WRITE, PortalUserSchema, tags } from './schemas.ts';
import { ApiKeyBody } from '../modules/api-keys/schemas.ts';
import { createApiKey, getApiKey, revokeApiKey } from '../modules/api-keys/service.ts';
import { MerchantBody, PortalUserBody } from '../modules/merchants/schemas.ts';
import { createMerchant, createPortalUser } from '../modules/merchants/service.ts';
import { createMediaAsset, createNamed } from '../modules/reference/service.ts';
import { EndpointBody } from '../modules/webhook-endpoints/schemas.ts';
import { createEndpoint } from '../modules/webhook-endpoints/service.ts';

const M = Type.Object({ m: Uuid() });
const MK = Type.Object({ m: Uuid(), k: Uuid() });
const strict = { additionalProperties: false } as const;
const Name = Type.String({ minLength: 1, maxLength: 255 });

export const NamedBody = Type.Object({ name: Name }, strict);

const routes: FastifyPluginAsyncTypebox = async (app) => {
  const created = <T>(reply: { code(n: number): unknown }, id: string, data: T) => {
    reply.code(201);
    return { data, request_id: id };
  };

  app.post(
    '/merchants',
    {
      schema: {
        operationId: 'createMerchant',
        summary: 'Create a merchant',
        tags,
        response: { 201: One(MerchantSchema, 'The merchant.'), ...problems(...OP_CREATE_MERCHANT) },
        body: MerchantBody,
      },
    },
    async (req, reply) => created(reply, req.id, await createMerchant(app.db, req.body)),
  );

  app.post(
    '/merchants/:m/users',
    {
      schema: {
        operationId: 'createPortalUser',
        summary: 'Create a portal user',
        tags,
        response: { 201: One(PortalUserSchema, 'The portal user.'), ...problems(...OP_WRITE) },
        params: M,
        body: PortalUserBody,
      },
    },
    async (req, reply) => created(reply, req.id, await createPortalUser(operatorCtx(req, req.params.m), req.body)),
  );

  const named = {
    locations: { operationId: 'createLocation', summary: 'Create a fulfillment location', schema: Location, answer: 'The location.' },
    vendors: { operationId: 'createVendor', summary: 'Create a vendor', schema: Vendor, answer: 'The vendor.' },
    tags: { operationId: 'createTag', summary: 'Create a tag', schema: Tag, answer: 'The tag.' },
  } as const;
  for (const table of ['locations', 'vendors', 'tags'] as const) {
    app.post(
      `/merchants/:m/${table}`,
      {
        schema: {
          operationId: named[table].operationId,
          summary: named[table].summary,
          tags,
          response: { 201: One(named[table].schema, named[table].answer), ...problems(...OP_WRITE) },
          params: M,
          body: NamedBody,
        },
      },
      async (req, reply) => created(reply, req.id, await createNamed(operatorCtx(req, req.params.m), table, req.body.name)),
    );
  }

  app.post(
    '/merchants/:m/media-assets',
    {
      schema: {
        operationId: 'createMediaAsset',
        summary: 'Create a media asset',
        tags,
        response: { 201: One(MediaAsset, 'The media asset.'), ...problems(...OP_WRITE) },
        params: M,
        body: Type.Object(
          {
            url: Type.String({ format: 'uri', maxLength: 2048 }),
            kind: Type.Union([Type.Literal('image'), Type.Literal('video')]),
            alt: Type.Optional(Type.String({ maxLength: 500 })),
          },
          strict,
        ),
      },
    },
    async (req, reply) => created(reply, req.id, await createMediaAsset(operatorCtx(req, req.params.m), req.body)),
  );

  app.post(
    '/merchants/:m/api-keys',
    {
      schema: {
        operationId: 'createApiKey',
        summary: 'Create an API key (the secret is shown once)',
        tags,
        response: { 201: One(NewApiKeySchema, 'The key record with its secret.'), ...problems(...OP_WRITE) },
        params: M,
        body: ApiKeyBody,
      },
    },
    async (req, reply) => created(reply, req.id, await createApiKey(operatorCtx(req, req.params.m), req.body)),
  );
  app.get(
    '/merchants/:m/api-keys/:k',
    {
      schema: {
        operationId: 'getApiKey',
        summary: 'Get an API key record',
        tags,
        response: { 200: One(ApiKeySchema, 'The key record.'), ...problems(...OP_READ) },
        params: MK,
      },
    },
    async (req) => ({
      data: await getApiKey(operatorCtx(req, req.params.m), req.params.k),
      request_id: req.id,
    }),
  );
  app.delete(
    '/merchants/:m/api-keys/:k',
    {
      schema: {
        operationId: 'revokeApiKey',
        summary: 'Revoke an API key',
        tags,
        response: { 200: One(ApiKeySchema, 'The key record with revoked_at.'), ...problems(...OP_READ) },
        params: MK,
      },
    },
    async (req) => ({
      data: await revokeApiKey(operatorCtx(req, req.params.m), req.params.k),
      request_id: req.id,
    }),
  );

  app.post(
    '/merchants/:m/webhook-endpoints',
    {
      schema: {
        operationId: 'createWebhookEndpoint',
        summary: 'Create a webhook endpoint',
        tags,
        response: { 201: One(NewEndpointSchema, 'The endpoint with its signing secret.'), ...problems(...OP_WRITE) },
        params: M,
        body: EndpointBody,
      },
    },
    async (req, reply) => created(reply, req.id, await createEndpoint(operatorCtx(req, req.params.m), req.body, app.config.webhookAllowPrivateUrls)),
  );
};

export default routes;
