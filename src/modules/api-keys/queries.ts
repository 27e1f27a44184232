// API-key statements. Every one takes the merchant's scope and filters by it.
import { sql } from 'kysely';
import type { Database } from '../../db/database.ts';
import { merchantRow, ofMerchant, type Scope } from '../../db/scope.ts';
import { KEY_LISTENER_NAME } from '../../http/keys.ts';

const COLUMNS = ['id', 'label', 'prefix', 'scopes', 'location_ids', 'created_at', 'last_used_at', 'revoked_at'] as const;

export function insertApiKey(
  db: Database,
  scope: Scope,
  key: { label: string; prefix: string; secret_hash: string; scopes: string[]; location_ids: string[] | null },
) {
  return db.insertInto('api_keys').values(merchantRow(scope, key)).returning(COLUMNS).executeTakeFirstOrThrow();
}

/** Newest first. */
export function selectApiKeys(db: Database, scope: Scope) {
  return db.selectFrom('api_keys').select(COLUMNS).where(ofMerchant('api_keys', scope)).orderBy('created_at', 'desc').orderBy('id', 'desc').execute();
}

export function selectApiKey(db: Database, scope: Scope, id: string) {
  return db.selectFrom('api_keys').select(COLUMNS).where(ofMerchant('api_keys', scope)).where('id', '=', id).executeTakeFirst();
}

/**
 * Revoking twice keeps the first time. Setting revoked_at announces the change on
 * KEY_CHANGES_CHANNEL (a trigger, migration 0013: sent at commit, dropped by a rollback, and sent
 * whoever writes the column): every API process forgets its cached copy of the key.
 */
export function markRevoked(db: Database, scope: Scope, id: string) {
  return db
    .updateTable('api_keys')
    .set({ revoked_at: sql`coalesce(revoked_at, clock_timestamp())`, updated_at: sql`clock_timestamp()` })
    .where(ofMerchant('api_keys', scope))
    .where('id', '=', id)
    .returning(COLUMNS)
    .executeTakeFirst();
}

export type ApiKeyRow = NonNullable<Awaited<ReturnType<typeof selectApiKey>>>;

/** Across merchants: how many processes listen for key changes on this database. */
export async function countKeyListeners(db: Database): Promise<number> {
  const { rows } = await sql<{
    n: string;
  }>`select count(*) as n from pg_stat_activity where application_name = ${KEY_LISTENER_NAME} and datname = current_database()`.execute(db);
  return Number(rows[0].n);
}
