// Operator review of a native product: approve makes pending values live (and a draft active);
// reject keeps them.
import { inTransaction } from '../../db/database.ts';
import type { Ctx } from '../../http/context.ts';
import { AppError, notFound } from '../../http/errors.ts';
import { lockProduct, updateProductRow } from './queries.ts';
import { emitProduct, getProduct, type Product } from './service.ts';

export async function reviewProduct(ctx: Ctx, id: string, decision: 'approve' | 'reject'): Promise<Product> {
  await inTransaction(ctx.db, async (trx) => {
    const p = await lockProduct(trx, ctx, id);
    if (!p) throw notFound('product');
    if (p.review_status !== 'in_review') throw new AppError('invalid_state', `The product is ${p.review_status}, not in_review.`);
    const set =
      decision === 'approve'
        ? {
            title: p.pending_title ?? p.title,
            description: p.pending_description ?? p.description,
            pending_title: null,
            pending_description: null,
            review_status: 'approved' as const,
            status: p.status === 'draft' ? ('active' as const) : p.status,
          }
        : { review_status: 'rejected' as const };
    await updateProductRow(trx, ctx, id, set);
    await emitProduct(trx, ctx, id, 'product.updated');
  });
  return getProduct(ctx, id);
}
