// Operator review of a native collection (catalog/review.ts).
import { inTransaction } from '../../db/database.ts';
import type { Ctx } from '../../http/context.ts';
import { reviewChange } from '../catalog/review.ts';
import { collectionRows } from './queries.ts';
import { emitCollection, getCollection, type Collection } from './service.ts';

export async function reviewCollection(ctx: Ctx, id: string, decision: 'approve' | 'reject'): Promise<Collection> {
  await inTransaction(ctx.db, async (trx) => {
    await collectionRows.update(trx, ctx, id, reviewChange('collection', await collectionRows.lock(trx, ctx, id), decision));
    await emitCollection(trx, ctx, id, 'collection.updated');
  });
  return getCollection(ctx, id);
}
