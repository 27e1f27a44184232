// Merchants and their portal users (operator onboarding).
import type { Database } from '../../db/database.ts';
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

export { AppError };
