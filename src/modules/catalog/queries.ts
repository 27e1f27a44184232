// Statements shared by the catalog modules: ownership of referenced ids, free handles, connected
// records by external id, and the savepoint a handle insert retries under.
import { sql } from 'kysely';
import type { Database } from '../../db/database.ts';
import { ofMerchant, type Scope } from '../../db/scope.ts';

export type OwnedTable = 'vendors' | 'tags' | 'media_assets' | 'products' | 'collections' | 'locations';
export type HandleTable = 'products' | 'collections';
export type ConnectedTable = 'media_assets' | 'products' | 'collections' | 'social_videos';

/** Which of `ids` name rows of the scope's merchant in `table`. */
export async function selectOwnIds(db: Database, scope: Scope, table: OwnedTable, ids: string[]): Promise<Set<string>> {
  const rows = await db.selectFrom(table).select('id').where(ofMerchant(table, scope)).where('id', 'in', ids).execute();
  return new Set(rows.map((r) => r.id));
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
