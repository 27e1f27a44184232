// Statements shared by the catalog modules: a kind's own table, ownership of referenced ids, free
// handles, connected records by external id, and the savepoint a handle insert retries under.
import { sql, type Selectable, type SelectQueryBuilder, type Updateable } from 'kysely';
import type { Database } from '../../db/database.ts';
import { insertRow, lockRow, updateRow, type NewRow } from '../../db/rows.ts';
import type { DB } from '../../db/schema.ts';
import { ofMerchant, scopeValues, type Scope } from '../../db/scope.ts';
import { statement } from '../../db/statement.ts';
import { finishPage, keysetPage, pageValues, type PageRequest, type PageValues } from '../../http/paging.ts';

export type OwnedTable = 'vendors' | 'tags' | 'media_assets' | 'products' | 'collections' | 'locations';
export type HandleTable = 'products' | 'collections';
export type ConnectedTable = 'media_assets' | 'products' | 'collections' | 'social_videos';

type KindTable = 'products' | 'collections' | 'social_videos';

interface KindTableSpec<T extends KindTable, Row, L> {
  table: T;
  /** The rows as the API shows them (the merchant filter is added to it). */
  shown: (db: Database, scope: Scope) => SelectQueryBuilder<DB, T, Row>;
  /** The columns a write or a review reads under the row's lock. */
  locked: readonly L[];
}

/**
 * The statements on a catalog kind's own table: its rows as shown, one by id, a page of them, insert, update
 * (stamping updated_at), and the lock a write or a review takes first, held until the transaction ends.
 */
export function kindQueries<T extends KindTable, Row extends { id: string; updated_at: Date | string }, L extends keyof Selectable<DB[T]> & string>({
  table,
  shown,
  locked,
}: KindTableSpec<T, Row, L>) {
  const rows = (db: Database, scope: Scope) => shown(db, scope).where(ofMerchant(table, scope));
  // The reads every integrator polls, compiled once per shape (db/statement.ts): `shown` may vary
  // its SQL with whether the scope is location-restricted and with how many locations it has.
  const byId = statement((db, v: Scope & { id: string }) => rows(db, v).where(sql.ref('id'), '=', v.id));
  const page = statement((db, v: Scope & PageValues) => keysetPage(rows(db, v), table, v));
  return {
    /** The merchant's rows as shown, for a kind's own conditions. */
    rows,
    select: (db: Database, scope: Scope, id: string) => byId(db, { ...scopeValues(scope), id }),
    selectPage: async (db: Database, scope: Scope, p: PageRequest, updatedAfter?: string) =>
      finishPage(p, await page(db, { ...scopeValues(scope), ...pageValues(p, updatedAfter) })),
    insert: (db: Database, scope: Scope, values: NewRow<T>) => insertRow(db, scope, table, values),
    update: (db: Database, scope: Scope, id: string, set: Updateable<DB[T]>) => updateRow(db, scope, table, id, set),
    lock: (db: Database, scope: Scope, id: string) => lockRow(db, scope, table, id, locked),
  };
}

/** An id's media kind (`image`, `video`); null for rows of a table without kinds. */
export type OwnKind = 'image' | 'video' | null;

/** The merchant's ids among `ids` in `table`, each with its kind (media assets; null elsewhere). */
export async function selectOwnIds(db: Database, scope: Scope, table: OwnedTable, ids: string[]): Promise<Map<string, OwnKind>> {
  const rows = await db
    .selectFrom(table)
    .select(['id', (table === 'media_assets' ? sql<OwnKind>`kind` : sql<OwnKind>`null`).as('kind')])
    .where(ofMerchant(table, scope))
    .where('id', 'in', ids)
    .execute();
  return new Map(rows.map((r) => [r.id, r.kind]));
}

/** Handles of the merchant's products or collections that are `base` or start with `base-`. */
export async function selectHandles(db: Database, scope: Scope, table: HandleTable, base: string, exceptId?: string): Promise<Set<string>> {
  const rows = await db
    .selectFrom(table)
    .select('handle')
    .where(ofMerchant(table, scope))
    .where((eb) => eb.or([eb('handle', '=', base), eb('handle', 'like', `${base}-%`)]))
    .$if(!!exceptId, (q) => q.where('id', '!=', exceptId!))
    .execute();
  return new Set(rows.map((r) => r.handle));
}

/**
 * Waits for, then holds until the commit, the merchant's lock on `name` (a transaction-scoped
 * advisory lock): writers that would otherwise keep taking the same value from each other take
 * turns instead.
 */
export async function lockName(trx: Database, scope: Scope, name: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtextextended(${`${scope.merchantId}|${name}`}, 0))`.execute(trx);
}

/** Ids of the merchant's records from the connected `source`, by external id. */
export async function selectConnectedIds(
  db: Database,
  scope: Scope,
  table: ConnectedTable,
  source: string,
  externalIds: string[],
): Promise<Map<string, string>> {
  if (externalIds.length === 0) return new Map();
  const rows = await db
    .selectFrom(table)
    .select(['id', 'external_id'])
    .where(ofMerchant(table, scope))
    .where('source', '=', 'connected')
    .where('source_name', '=', source)
    .where('external_id', 'in', externalIds)
    .execute();
  return new Map(rows.map((r) => [r.external_id ?? '', r.id]));
}

/** Runs `fn` under a savepoint: a failure rolls back only what `fn` did, and is rethrown. */
export async function underSavepoint<T>(trx: Database, fn: () => Promise<T>): Promise<T> {
  await sql`savepoint catalog_attempt`.execute(trx);
  try {
    const out = await fn();
    await sql`release savepoint catalog_attempt`.execute(trx);
    return out;
  } catch (err) {
    await sql`rollback to savepoint catalog_attempt`.execute(trx);
    throw err;
  }
}
