// Portal sign-in statements. A session is found by its token's hash and a user by email, before
// the merchant is known (both unique across merchants); everything after takes the merchant's scope.
import { sql } from 'kysely';
import type { Database } from '../db/database.ts';
import { ofMerchant, type Scope } from '../db/scope.ts';

/** When a session idle since now ends. */
const expiry = (idleHours: number) => sql<Date>`clock_timestamp() + ${`${idleHours} hours`}::interval`;

/** Across merchants: the user signing in, with their merchant's name. */
export function findSignInUser(db: Database, email: string) {
  return db
    .selectFrom('portal_users as u')
    .innerJoin('merchants as m', 'm.id', 'u.merchant_id')
    .select(['u.id', 'u.email', 'u.password_hash', 'u.merchant_id', 'm.name as merchant_name'])
    .where('u.email', '=', email)
    .executeTakeFirst();
}

export async function insertSession(db: Database, scope: Scope, session: { id: string; user_id: string; csrf_token: string }, idleHours: number) {
  await db
    .insertInto('portal_sessions')
    .values({ ...session, merchant_id: scope.merchantId, expires_at: expiry(idleHours) })
    .execute();
}

/** Across merchants: the unexpired session with this token hash, with its user and merchant. */
export function findLiveSession(db: Database, id: string) {
  return db
    .selectFrom('portal_sessions as s')
    .innerJoin('portal_users as u', 'u.id', 's.user_id')
    .innerJoin('merchants as m', 'm.id', 's.merchant_id')
    .select(['s.id', 's.merchant_id', 'm.name as merchant_name', 's.user_id', 'u.email', 's.csrf_token', 's.last_seen_at'])
    .where('s.id', '=', id)
    .where('s.expires_at', '>', sql<Date>`clock_timestamp()`)
    .executeTakeFirst();
}

/** Sliding expiry: the session lives `idleHours` from now. */
export async function extendSession(db: Database, scope: Scope, id: string, idleHours: number) {
  await db
    .updateTable('portal_sessions')
    .set({ last_seen_at: sql<Date>`clock_timestamp()`, expires_at: expiry(idleHours) })
    .where(ofMerchant('portal_sessions', scope))
    .where('id', '=', id)
    .execute();
}

export async function deleteSession(db: Database, scope: Scope, id: string) {
  await db.deleteFrom('portal_sessions').where(ofMerchant('portal_sessions', scope)).where('id', '=', id).execute();
}
