// Operator review of a native collection (catalog/review.ts).
import { inTransaction } from '../../db/database.ts';
import type { Ctx } from '../../http/context.ts';
import { reviewChange } from '../catalog/review.ts';
import { lockCollection, updateCollectionRow } from './queries.ts';
import { emitCollection, getCollection, type Collection } from './service.ts';

export async function reviewCollection(ctx: Ctx, id: string, decision: 'approve' | 'reject'): Promise<Collection> {
  await inTransaction(ctx.db, async (trx) => {
    await updateCollectionRow(trx, ctx, id, reviewChange('collection', await lockCollection(trx, ctx, id), decision));
    await emitCollection(trx, ctx, id, 'collection.updated');
  });
  return getCollection(ctx, id);
}
