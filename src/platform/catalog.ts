// Operator catalog routes: review decisions and connected-source sync.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { One } from '../http/schemas.ts';
import { Collection, Product } from '../modules/catalog/schemas.ts';
import { SyncResultSchema } from './schemas.ts';
import { SyncBody } from '../modules/connected-sync/schemas.ts';
import { connectedSync } from '../modules/connected-sync/service.ts';
import { reviewCollection } from '../modules/collections/review.ts';
import { reviewProduct } from '../modules/products/review.ts';
import { merchantCtx, operatorRoute } from './route.ts';

const strict = { additionalProperties: false } as const;
const Decision = Type.Object({ decision: Type.Union([Type.Literal('approve'), Type.Literal('reject')]) }, strict);

/** The kinds an operator reviews: POST /merchants/:merchant_id/<kinds>/:<id>/review decides on one in review. */
const REVIEWED = [
  { kinds: 'products', id: 'product_id', noun: 'product', operationId: 'reviewProduct', item: Product, review: reviewProduct },
  { kinds: 'collections', id: 'collection_id', noun: 'collection', operationId: 'reviewCollection', item: Collection, review: reviewCollection },
] as const;

const routes: FastifyPluginAsyncTypebox = async (app) => {
  for (const { kinds, id, noun, operationId, item, review } of REVIEWED) {
    operatorRoute(app, 'POST', `/merchants/:merchant_id/${kinds}/:${id}/review`, {
      operationId,
      summary: `Approve or reject a ${noun} in review`,
      body: Decision,
      answer: One(item, `The ${noun} after the decision.`),
      extraErrors: ['invalid_state'],
      run: (req) => review(merchantCtx(req), req.params[id], req.body.decision),
    });
  }
  operatorRoute(app, 'POST', '/merchants/:merchant_id/connected-sync', {
    operationId: 'syncConnectedSource',
    summary: 'Upsert read-only records from a connected source',
    body: SyncBody,
    answer: One(SyncResultSchema, 'What was created and updated, with the ids by external_id.'),
    run: (req) => connectedSync(merchantCtx(req), req.body),
  });
};

export default routes;
