// Merchants and their portal users (operator onboarding).
import { inTransaction, type Database } from '../../db/database.ts';
import type { Ctx } from '../../http/context.ts';
import { AppError, invalid, notFound } from '../../http/errors.ts';
import { hashPassword } from './passwords.ts';

export async function createMerchant(db: Database, input: { name: string; currency?: string }) {
  const row = await db
    .insertInto('merchants')
    .values({ name: input.name, currency: (input.currency ?? 'USD').toUpperCase() })
    .returning(['id', 'name', 'currency'])
    .executeTakeFirstOrThrow();
  return row;
}

export async function assertMerchant(db: Database, merchantId: string): Promise<void> {
  const row = await db.selectFrom('merchants').select('id').where('id', '=', merchantId).executeTakeFirst();
  if (!row) throw notFound('merchant');
}

/** The one form of an email the portal stores, looks up and throttles on. */
export const normaliseEmail = (email: string) => email.trim().toLowerCase();

export async function createPortalUser(ctx: Ctx, input: { email: string; password: string }) {
  const email = normaliseEmail(input.email);
  const taken = await ctx.db.selectFrom('portal_users').select('id').where('email', '=', email).executeTakeFirst();
  if (taken) throw invalid('/email', 'is already registered', 'taken');
  const password_hash = await hashPassword(input.password);
  try {
    return await ctx.db
      .insertInto('portal_users')
      .values({ merchant_id: ctx.merchantId, email, password_hash })
      .returning(['id', 'email'])
      .executeTakeFirstOrThrow();
  } catch (err) {
    if ((err as { code?: string }).code === '23505') throw invalid('/email', 'is already registered', 'taken');
    throw err;
  }
}

/** Every merchant with its locations and portal users' emails (operator CLI). */
export async function listMerchants(db: Database) {
  const merchants = await db.selectFrom('merchants').select(['id', 'name', 'currency', 'created_at']).orderBy('created_at').orderBy('id').execute();
  const ids = merchants.map((m) => m.id);
  if (ids.length === 0) return [];
  const [locations, users] = await Promise.all([
    db.selectFrom('locations').select(['merchant_id', 'id', 'name']).where('merchant_id', 'in', ids).orderBy('created_at').orderBy('id').execute(),
    db.selectFrom('portal_users').select(['merchant_id', 'email']).where('merchant_id', 'in', ids).orderBy('email').execute(),
  ]);
  return merchants.map((m) => ({
    id: m.id,
    name: m.name,
    currency: m.currency,
    created_at: m.created_at.toISOString(),
    locations: locations.filter((l) => l.merchant_id === m.id).map((l) => ({ id: l.id, name: l.name })),
    portal_users: users.filter((u) => u.merchant_id === m.id).map((u) => u.email),
  }));
}

/** A new password for a portal user, found by email; their open sessions end. */
export async function resetPortalPassword(db: Database, input: { email: string; password: string }) {
  const email = input.email.trim().toLowerCase();
  const password_hash = await hashPassword(input.password);
  return inTransaction(db, async (trx) => {
    const user = await trx.updateTable('portal_users').set({ password_hash }).where('email', '=', email).returning(['id', 'email', 'merchant_id']).executeTakeFirst();
    if (!user) throw invalid('/email', 'is not a portal user', 'unknown_id');
    const ended = await trx.deleteFrom('portal_sessions').where('merchant_id', '=', user.merchant_id).where('user_id', '=', user.id).executeTakeFirst();
    return { id: user.id, email: user.email, merchant_id: user.merchant_id, sessions_ended: Number(ended.numDeletedRows) };
  });
}

export { AppError };
