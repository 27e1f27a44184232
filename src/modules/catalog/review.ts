// The review rule of native products and collections: only a record in review takes a decision;
// approve makes the pending title/description live, reject keeps them pending.
import { AppError, notFound } from '../../http/errors.ts';

interface Reviewable {
  review_status: 'not_submitted' | 'in_review' | 'approved' | 'rejected';
  title: string;
  description: string | null;
  pending_title: string | null;
  pending_description: string | null;
}

/** The columns a decision writes on `row` (undefined: no such record, 404). */
export function reviewChange(what: 'product' | 'collection', row: Reviewable | undefined, decision: 'approve' | 'reject') {
  if (!row) throw notFound(what);
  if (row.review_status !== 'in_review') throw new AppError('invalid_state', `The ${what} is ${row.review_status}, not in_review.`);
  if (decision === 'reject') return { review_status: 'rejected' as const };
  return {
    title: row.pending_title ?? row.title,
    description: row.pending_description ?? row.description,
    pending_title: null,
    pending_description: null,
    review_status: 'approved' as const,
  };
}
