// Operator review of a native product (catalog/review.ts); a first approval makes a draft active.
import type { Ctx } from '../../http/context.ts';
import { reviewChange } from '../catalog/review.ts';
import { productRows } from './queries.ts';
import { writeProduct, type Product } from './service.ts';

export function reviewProduct(ctx: Ctx, id: string, decision: 'approve' | 'reject'): Promise<Product> {
  return writeProduct(ctx, 'product.updated', async (trx) => {
    const p = await productRows.lock(trx, ctx, id);
    const change = reviewChange('product', p, decision);
    const activate = decision === 'approve' && p?.status === 'draft';
    await productRows.update(trx, ctx, id, activate ? { ...change, status: 'active' } : change);
    return id;
  });
}
