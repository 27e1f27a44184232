// Merchants and their portal users (operator onboarding).
import { inTransaction, type Database } from '../../db/database.ts';
import { merchantScope } from '../../db/scope.ts';
import type { Ctx } from '../../http/context.ts';
import { invalid, notFound } from '../../http/errors.ts';
import { hashPassword } from './passwords.ts';
import { deleteUserSessions, emailTaken, insertMerchant, insertPortalUser, merchantExists, selectMerchantsWithPeople, setPasswordByEmail } from './queries.ts';
import type { MerchantBody, PortalUserBody } from './schemas.ts';

/** ISO 4217 codes in use, from the runtime's ICU data (162 in Node 24's). */
const CURRENCIES = new Set(Intl.supportedValuesOf('currency'));

export async function createMerchant(db: Database, input: MerchantBody) {
  const currency = (input.currency ?? 'USD').toUpperCase();
  // The pattern lets any three letters in ("ZZZ"); orders then carried a currency that is none.
  if (!CURRENCIES.has(currency)) throw invalid('/currency', 'is not an ISO 4217 currency code (USD, EUR, GBP, JPY, …)', 'invalid_value');
  return insertMerchant(db, { name: input.name, currency });
}

export async function assertMerchant(db: Database, merchantId: string): Promise<void> {
  if (!(await merchantExists(db, merchantId))) throw notFound('merchant');
}

/** The one form of an email the portal stores, looks up and throttles on. */
export const normaliseEmail = (email: string) => email.trim().toLowerCase();

const emailTakenError = () => invalid('/email', 'is already registered', 'taken');

export async function createPortalUser(ctx: Ctx, input: PortalUserBody) {
  const email = normaliseEmail(input.email);
  if (await emailTaken(ctx.db, email)) throw emailTakenError();
  const password_hash = await hashPassword(input.password);
  try {
    return await insertPortalUser(ctx.db, ctx, { email, password_hash });
  } catch (err) {
    // Two creates of one email at once: the unique index decides.
    if ((err as { code?: string }).code === '23505') throw emailTakenError();
    throw err;
  }
}

/** Every merchant with its locations and portal users' emails (operator CLI). */
export async function listMerchants(db: Database) {
  const { merchants, locations, users } = await selectMerchantsWithPeople(db);
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
export async function resetPortalPassword(db: Database, input: PortalUserBody) {
  const email = normaliseEmail(input.email);
  const password_hash = await hashPassword(input.password);
  return inTransaction(db, async (trx) => {
    const user = await setPasswordByEmail(trx, email, password_hash);
    if (!user) throw invalid('/email', 'is not a portal user', 'unknown_id');
    const sessions_ended = await deleteUserSessions(trx, merchantScope(user.merchant_id), user.id);
    return { id: user.id, email: user.email, merchant_id: user.merchant_id, sessions_ended };
  });
}
