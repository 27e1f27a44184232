// Merchant and portal-user statements. Statements on one merchant's rows take its scope and filter
// by it; the rest work across merchants by nature and say so: a merchant is created or found by
// its own id, and a portal email is unique across merchants (sign-in finds the merchant by it).
import type { Database } from '../../db/database.ts';
import { ofMerchant, type Scope } from '../../db/scope.ts';

export function insertMerchant(db: Database, merchant: { name: string; currency: string }) {
  return db.insertInto('merchants').values(merchant).returning(['id', 'name', 'currency']).executeTakeFirstOrThrow();
}

export async function merchantExists(db: Database, merchantId: string): Promise<boolean> {
  return (await db.selectFrom('merchants').select('id').where('id', '=', merchantId).executeTakeFirst()) !== undefined;
}

/** Across merchants: emails are unique over every merchant's portal users. */
export async function emailTaken(db: Database, email: string): Promise<boolean> {
  return (await db.selectFrom('portal_users').select('id').where('email', '=', email).executeTakeFirst()) !== undefined;
}

export function insertPortalUser(db: Database, scope: Scope, user: { email: string; password_hash: string }) {
  return db
    .insertInto('portal_users')
    .values({ merchant_id: scope.merchantId, ...user })
    .returning(['id', 'email'])
    .executeTakeFirstOrThrow();
}

/** Across merchants (operator CLI): every merchant, its locations and its portal users' emails. */
export async function selectMerchantsWithPeople(db: Database) {
  const merchants = await db.selectFrom('merchants').select(['id', 'name', 'currency', 'created_at']).orderBy('created_at').orderBy('id').execute();
  const ids = merchants.map((m) => m.id);
  if (ids.length === 0) return { merchants, locations: [], users: [] };
  const [locations, users] = await Promise.all([
    db.selectFrom('locations').select(['merchant_id', 'id', 'name']).where('merchant_id', 'in', ids).orderBy('created_at').orderBy('id').execute(),
    db.selectFrom('portal_users').select(['merchant_id', 'email']).where('merchant_id', 'in', ids).orderBy('email').execute(),
  ]);
  return { merchants, locations, users };
}

/** Across merchants (operator CLI): a portal user found by email gets a new password hash. */
export function setPasswordByEmail(db: Database, email: string, passwordHash: string) {
  return db
    .updateTable('portal_users')
    .set({ password_hash: passwordHash })
    .where('email', '=', email)
    .returning(['id', 'email', 'merchant_id'])
    .executeTakeFirst();
}

/** Ends every session of one portal user; the number ended. */
export async function deleteUserSessions(db: Database, scope: Scope, userId: string): Promise<number> {
  const ended = await db.deleteFrom('portal_sessions').where(ofMerchant('portal_sessions', scope)).where('user_id', '=', userId).executeTakeFirst();
  return Number(ended.numDeletedRows);
}
