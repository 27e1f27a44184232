// Operator routes: merchants, portal users, locations, vendors, tags, media assets, API keys and
// webhook endpoint records.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { NonBlank, One, WebUrl } from '../http/schemas.ts';
import { Location, MediaAsset, Tag, Vendor } from '../modules/reference/routes.ts';
import { MerchantSchema, NewApiKeySchema, ApiKeySchema, NewEndpointSchema, PortalUserSchema } from './schemas.ts';
import { ApiKeyBody } from '../modules/api-keys/schemas.ts';
import { createApiKey, getApiKey, revokeApiKey } from '../modules/api-keys/service.ts';
import { MerchantBody, PortalUserBody } from '../modules/merchants/schemas.ts';
import { createMerchant, createPortalUser } from '../modules/merchants/service.ts';
import { createMediaAsset, createNamed } from '../modules/reference/service.ts';
import { EndpointBody } from '../modules/webhook-endpoints/schemas.ts';
import { createEndpoint } from '../modules/webhook-endpoints/service.ts';
import { merchantCtx, operatorCreate, operatorRoute } from './route.ts';

const strict = { additionalProperties: false } as const;
const Name = NonBlank();

export const NamedBody = Type.Object({ name: Name }, strict);

const routes: FastifyPluginAsyncTypebox = async (app) => {
  operatorCreate(app, '/merchants', {
    operationId: 'createMerchant',
    summary: 'Create a merchant',
    body: MerchantBody,
    answer: One(MerchantSchema, 'The merchant.'),
    run: (req) => createMerchant(app.db, req.body),
  });

  operatorCreate(app, '/merchants/:merchant_id/users', {
    operationId: 'createPortalUser',
    summary: 'Create a portal user',
    body: PortalUserBody,
    answer: One(PortalUserSchema, 'The portal user.'),
    run: (req) => createPortalUser(merchantCtx(req), req.body),
  });

  const named = {
    locations: { operationId: 'createLocation', summary: 'Create a fulfillment location', schema: Location, answer: 'The location.' },
    vendors: { operationId: 'createVendor', summary: 'Create a vendor', schema: Vendor, answer: 'The vendor.' },
    tags: { operationId: 'createTag', summary: 'Create a tag', schema: Tag, answer: 'The tag.' },
  } as const;
  for (const table of ['locations', 'vendors', 'tags'] as const) {
    const { operationId, summary, schema, answer } = named[table];
    operatorCreate(app, `/merchants/:merchant_id/${table}`, {
      operationId,
      summary,
      body: NamedBody,
      answer: One(schema, answer),
      // The record's GET is the integration API's (contract §1: a create's Location points at it).
      location: (record) => `/api/integrations/v1/${table}/${record.id}`,
      run: (req) => createNamed(merchantCtx(req), table, req.body.name),
    });
  }

  operatorCreate(app, '/merchants/:merchant_id/media-assets', {
    operationId: 'createMediaAsset',
    summary: 'Create a media asset',
    body: Type.Object(
      {
        url: WebUrl(),
        kind: Type.Union([Type.Literal('image'), Type.Literal('video')]),
        alt: Type.Optional(Type.String({ maxLength: 500 })),
      },
      strict,
    ),
    answer: One(MediaAsset, 'The media asset.'),
    location: (asset) => `/api/integrations/v1/media-assets/${asset.id}`,
    run: (req) => createMediaAsset(merchantCtx(req), req.body),
  });

  operatorCreate(app, '/merchants/:merchant_id/api-keys', {
    operationId: 'createApiKey',
    summary: 'Create an API key (the secret is shown once)',
    body: ApiKeyBody,
    answer: One(NewApiKeySchema, 'The key record with its secret.'),
    location: (key, { merchant_id }) => `/api/platform/v1/merchants/${merchant_id}/api-keys/${key.id}`,
    run: (req) => createApiKey(merchantCtx(req), req.body),
  });
  operatorRoute(app, 'GET', '/merchants/:merchant_id/api-keys/:key_id', {
    operationId: 'getApiKey',
    summary: 'Get an API key record',
    answer: One(ApiKeySchema, 'The key record.'),
    run: (req) => getApiKey(merchantCtx(req), req.params.key_id),
  });
  operatorRoute(app, 'DELETE', '/merchants/:merchant_id/api-keys/:key_id', {
    operationId: 'revokeApiKey',
    summary: 'Revoke an API key',
    answer: One(ApiKeySchema, 'The key record with revoked_at.'),
    run: (req) => revokeApiKey(merchantCtx(req), req.params.key_id),
  });

  operatorCreate(app, '/merchants/:merchant_id/webhook-endpoints', {
    operationId: 'createWebhookEndpoint',
    summary: 'Create a webhook endpoint',
    body: EndpointBody,
    answer: One(NewEndpointSchema, 'The endpoint with its signing secret.'),
    location: (endpoint, { merchant_id }) => `/api/platform/v1/merchants/${merchant_id}/webhook-endpoints/${endpoint.id}`,
    run: (req) => createEndpoint(merchantCtx(req), req.body, app.config.webhookAllowPrivateUrls),
  });
};

export default routes;
