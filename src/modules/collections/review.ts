// Operator review of a native collection (catalog/review.ts).
import type { Ctx } from '../../http/context.ts';
import { reviewChange } from '../catalog/review.ts';
import { collectionRows } from './queries.ts';
import { writeCollection, type Collection } from './service.ts';

export function reviewCollection(ctx: Ctx, id: string, decision: 'approve' | 'reject'): Promise<Collection> {
  return writeCollection(ctx, 'collection.updated', async (trx) => {
    await collectionRows.update(trx, ctx, id, reviewChange('collection', await collectionRows.lock(trx, ctx, id), decision));
    return id;
  });
}
