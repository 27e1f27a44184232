// Operator catalog routes: review decisions and connected-source sync.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { operatorCtx } from '../http/context.ts';
import { Nullable, One, Uuid, problems } from '../http/schemas.ts';
import { Collection, Product } from '../modules/catalog/schemas.ts';
import { OP_WRITE, SyncResultSchema, tags } from './schemas.ts';
import { Description, Title, VariantFields } from '../modules/catalog/schemas.ts';
import { connectedSync } from '../modules/catalog/connected-sync.ts';
import { reviewCollection } from '../modules/collections/service.ts';
import { reviewProduct } from '../modules/products/service.ts';

const strict = { additionalProperties: false } as const;
const Decision = Type.Object({ decision: Type.Union([Type.Literal('approve'), Type.Literal('reject')]) }, strict);
const ExternalId = Type.String({ minLength: 1, maxLength: 255 });
const ExternalIds = Type.Array(ExternalId, { maxItems: 1000 });

const SyncBody = Type.Object(
  {
    source_name: Type.String({ minLength: 1, maxLength: 100 }),
    media_assets: Type.Optional(Type.Array(Type.Object({ external_id: ExternalId, url: Type.String({ format: 'uri', maxLength: 2048 }), kind: Type.Union([Type.Literal('image'), Type.Literal('video')]), alt: Type.Optional(Nullable(Type.String({ maxLength: 500 }))) }, strict), { maxItems: 1000 })),
    products: Type.Optional(
      Type.Array(
        Type.Object(
          {
            external_id: ExternalId,
            title: Title,
            description: Type.Optional(Nullable(Description)),
            handle: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
            status: Type.Optional(Type.Union([Type.Literal('draft'), Type.Literal('active'), Type.Literal('archived')])),
            vendor_id: Type.Optional(Nullable(Uuid())),
            tag_ids: Type.Optional(Type.Array(Uuid(), { maxItems: 250, uniqueItems: true })),
            media_external_ids: Type.Optional(ExternalIds),
            variants: Type.Optional(
              Type.Array(
                Type.Object({ external_id: ExternalId, ...VariantFields, media_asset_id: Type.Optional(Type.Null()), media_external_id: Type.Optional(Nullable(ExternalId)) }, strict),
                { maxItems: 100 },
              ),
            ),
          },
          strict,
        ),
        { maxItems: 500 },
      ),
    ),
    collections: Type.Optional(
      Type.Array(
        Type.Object(
          {
            external_id: ExternalId,
            title: Title,
            description: Type.Optional(Nullable(Description)),
            kind: Type.Optional(Type.Union([Type.Literal('manual'), Type.Literal('smart')])),
            rules: Type.Optional(Type.Unknown()),
            product_external_ids: Type.Optional(ExternalIds),
            tag_ids: Type.Optional(Type.Array(Uuid(), { maxItems: 250, uniqueItems: true })),
            image_external_id: Type.Optional(Nullable(ExternalId)),
          },
          strict,
        ),
        { maxItems: 500 },
      ),
    ),
    social_videos: Type.Optional(
      Type.Array(
        Type.Object(
          {
            external_id: ExternalId,
            title: Title,
            description: Type.Optional(Nullable(Description)),
            status: Type.Optional(Type.Union([Type.Literal('draft'), Type.Literal('published')])),
            video_url: Type.Optional(Nullable(Type.String({ format: 'uri', pattern: '^https://', maxLength: 2048 }))),
            video_external_id: Type.Optional(Nullable(ExternalId)),
            thumbnail_external_id: Type.Optional(Nullable(ExternalId)),
            product_external_ids: Type.Optional(ExternalIds),
            collection_external_ids: Type.Optional(ExternalIds),
          },
          strict,
        ),
        { maxItems: 500 },
      ),
    ),
  },
  strict,
);

const routes: FastifyPluginAsyncTypebox = async (app) => {
  app.post('/merchants/:m/products/:p/review', { schema: { operationId: 'reviewProduct', summary: 'Approve or reject a product in review', tags, response: { 200: One(Product, 'The product after the decision.'), ...problems(...OP_WRITE, 'invalid_state') }, params: Type.Object({ m: Uuid(), p: Uuid() }), body: Decision } }, async (req) => ({
    data: await reviewProduct(operatorCtx(req, req.params.m), req.params.p, req.body.decision),
    request_id: req.id,
  }));
  app.post('/merchants/:m/collections/:c/review', { schema: { operationId: 'reviewCollection', summary: 'Approve or reject a collection in review', tags, response: { 200: One(Collection, 'The collection after the decision.'), ...problems(...OP_WRITE, 'invalid_state') }, params: Type.Object({ m: Uuid(), c: Uuid() }), body: Decision } }, async (req) => ({
    data: await reviewCollection(operatorCtx(req, req.params.m), req.params.c, req.body.decision),
    request_id: req.id,
  }));
  app.post('/merchants/:m/connected-sync', { schema: { operationId: 'syncConnectedSource', summary: 'Upsert read-only records from a connected source', tags, response: { 200: One(SyncResultSchema, 'What was created and updated, with the ids by external_id.'), ...problems(...OP_WRITE) }, params: Type.Object({ m: Uuid() }), body: SyncBody } }, async (req) => ({
    data: await connectedSync(operatorCtx(req, req.params.m), req.body as never),
    request_id: req.id,
  }));
};

export default routes;
