// Operator catalog routes: review decisions and connected-source sync.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { operatorCtx } from '../http/context.ts';
import { One, Uuid, problems } from '../http/schemas.ts';
import { Collection, Product } from '../modules/catalog/schemas.ts';
import { OP_WRITE, SyncResultSchema, tags } from './schemas.ts';
import { SyncBody } from '../modules/connected-sync/schemas.ts';
import { connectedSync } from '../modules/connected-sync/service.ts';
import { reviewCollection } from '../modules/collections/review.ts';
import { reviewProduct } from '../modules/products/review.ts';

const strict = { additionalProperties: false } as const;
const Decision = Type.Object({ decision: Type.Union([Type.Literal('approve'), Type.Literal('reject')]) }, strict);
const routes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/merchants/:m/products/:p/review',
    {
      schema: {
        operationId: 'reviewProduct',
        summary: 'Approve or reject a product in review',
        tags,
        response: { 200: One(Product, 'The product after the decision.'), ...problems(...OP_WRITE, 'invalid_state') },
        params: Type.Object({ m: Uuid(), p: Uuid() }),
        body: Decision,
      },
    },
    async (req) => ({
      data: await reviewProduct(operatorCtx(req, req.params.m), req.params.p, req.body.decision),
      request_id: req.id,
    }),
  );
  app.post(
    '/merchants/:m/collections/:c/review',
    {
      schema: {
        operationId: 'reviewCollection',
        summary: 'Approve or reject a collection in review',
        tags,
        response: { 200: One(Collection, 'The collection after the decision.'), ...problems(...OP_WRITE, 'invalid_state') },
        params: Type.Object({ m: Uuid(), c: Uuid() }),
        body: Decision,
      },
    },
    async (req) => ({
      data: await reviewCollection(operatorCtx(req, req.params.m), req.params.c, req.body.decision),
      request_id: req.id,
    }),
  );
  app.post(
    '/merchants/:m/connected-sync',
    {
      schema: {
        operationId: 'syncConnectedSource',
        summary: 'Upsert read-only records from a connected source',
        tags,
        response: { 200: One(SyncResultSchema, 'What was created and updated, with the ids by external_id.'), ...problems(...OP_WRITE) },
        params: Type.Object({ m: Uuid() }),
        body: SyncBody,
      },
    },
    async (req) => ({
      data: await connectedSync(operatorCtx(req, req.params.m), req.body),
      request_id: req.id,
    }),
  );
};

export default routes;
