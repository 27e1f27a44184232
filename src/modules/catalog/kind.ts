// What the catalog kinds (products, collections, social videos) share around their own
// statements: get (404 when absent), a presented page, the created/updated event, a write with its
// event, and the lock a write takes (404 absent, 409 read_only_record for a connected record).
import { inTransaction, type Database } from '../../db/database.ts';
import { merchantScope, type Scope } from '../../db/scope.ts';
import type { Ctx } from '../../http/context.ts';
import { AppError, notFound } from '../../http/errors.ts';
import type { Page, PageRequest } from '../../http/paging.ts';
import type { JsonText } from '../../http/serialize.ts';
import { emitEvent, type EventType } from '../../events/outbox.ts';

/** The record locked for a native write: 404 when absent, 409 read_only_record when connected. */
export async function lockNative<R extends { source: string }>(locked: Promise<R | undefined>, what: string): Promise<R> {
  const row = await locked;
  if (!row) throw notFound(what);
  if (row.source !== 'native') throw new AppError('read_only_record', `This ${what} comes from a connected source and is read-only here.`);
  return row;
}

/** What a native patch changes of the reviewed fields: title/description wait as pending values, submit sends to review. */
export function pendingChanges(patch: { title?: string; description?: string | null; submit?: boolean }) {
  return {
    ...(patch.title !== undefined && { pending_title: patch.title }),
    ...(patch.description !== undefined && { pending_description: patch.description }),
    ...(patch.submit && { review_status: 'in_review' as const }),
  };
}

/** The columns of a record written here: native, no connected source names it. */
export const NATIVE = { source_name: null, external_id: null } as const;

/** The review columns of a new native product or collection: nothing pending, in review when submitted. */
export const newReviewable = (submit: boolean | undefined) => ({
  review_status: submit ? ('in_review' as const) : ('not_submitted' as const),
  ...NATIVE,
  pending_title: null,
  pending_description: null,
});

export interface KindOps<T, Row> {
  /** The singular noun of 404s and read-only answers ("collection", "social video"). */
  what: string;
  load: (db: Database, scope: Scope, id: string) => Promise<T | undefined>;
  selectPage: (db: Database, scope: Scope, page: PageRequest, updatedAfter?: string) => Promise<Page<Row>>;
  /** The page's records, or their JSON text where PostgreSQL built them (answered as it is). */
  present: (db: Database, scope: Scope, rows: Row[]) => Promise<T[] | JsonText<T>[]>;
}

/** get, list, emit and write for one kind, from how it loads, pages and presents its rows. */
export function catalogKind<T, Row, E extends EventType>(ops: KindOps<T, Row>) {
  async function get(ctx: Ctx, id: string): Promise<T> {
    const found = await ops.load(ctx.db, ctx, id);
    if (!found) throw notFound(ops.what);
    return found;
  }
  /** The event carries the record as every location sees it, whoever wrote it. */
  async function emit(trx: Database, scope: Scope, id: string, type: E): Promise<T | undefined> {
    const object = await ops.load(trx, merchantScope(scope.merchantId), id);
    await emitEvent(trx, { merchantId: scope.merchantId, type, locationId: null, object });
    return object;
  }
  return {
    get,
    emit,
    async list(ctx: Ctx, page: PageRequest, filters: { updated_after?: string }): Promise<Page<T | JsonText<T>>> {
      const { items, meta } = await ops.selectPage(ctx.db, ctx, page, filters.updated_after);
      return { items: await ops.present(ctx.db, ctx, items), meta };
    },
    /** A create or update: `change` (answering the record's id) and its event in one transaction, then the record as get shows it. */
    async write(ctx: Ctx, type: E, change: (trx: Database) => Promise<string>): Promise<T> {
      const { id, object } = await inTransaction(ctx.db, async (trx) => {
        const changed = await change(trx);
        return { id: changed, object: await emit(trx, ctx, changed, type) };
      });
      // The event's record is what every location sees: for a key that sees every location it is
      // the answer too, so it is not read again.
      return ctx.locationIds === null && object !== undefined ? object : get(ctx, id);
    },
  };
}
