// API keys: the secret is shown once; only its SHA-256 hash is stored. Shared by the operator API,
// the portal and request authentication.
import { createHash, randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import type { Database } from '../../db/database.ts';
import type { Ctx } from '../../http/context.ts';
import { AppError, invalidFields, notFound, type FieldError } from '../../http/errors.ts';
import { iso, isoOrNull } from '../../http/serialize.ts';
import { SCOPES } from '../../http/scopes.ts';

// A fixed, greppable prefix lets secret scanners recognise leaked keys.
export const KEY_PREFIX = 'mia_sk_';
const PREFIX_SHOWN = KEY_PREFIX.length + 6;

export const hashSecret = (secret: string) => createHash('sha256').update(secret).digest('hex');

export interface ApiKeyInput {
  label: string;
  scopes: string[];
  location_ids?: string[] | null;
}

type KeyRow = {
  id: string;
  label: string;
  prefix: string;
  scopes: string[];
  location_ids: string[] | null;
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
};

const columns = ['id', 'label', 'prefix', 'scopes', 'location_ids', 'created_at', 'last_used_at', 'revoked_at'] as const;

export function presentApiKey(k: KeyRow) {
  return {
    id: k.id,
    label: k.label,
    prefix: k.prefix,
    scopes: k.scopes,
    location_ids: k.location_ids,
    created_at: iso(k.created_at),
    last_used_at: isoOrNull(k.last_used_at),
    revoked_at: isoOrNull(k.revoked_at),
  };
}
export type ApiKey = ReturnType<typeof presentApiKey>;

/** 422 naming each location id that is not one of the merchant's. */
export async function checkLocationIds(db: Database, merchantId: string, ids: string[] | null | undefined, path: string) {
  if (!ids || ids.length === 0) return;
  const found = new Set(
    (await db.selectFrom('locations').select('id').where('merchant_id', '=', merchantId).where('id', 'in', ids).execute()).map((r) => r.id),
  );
  const errors: FieldError[] = [];
  ids.forEach((id, i) => {
    if (!found.has(id)) errors.push({ path: `${path}/${i}`, message: 'is not a location of this merchant', code: 'unknown_id' });
  });
  if (errors.length) throw invalidFields(errors);
}

export async function createApiKey(ctx: Ctx, input: ApiKeyInput): Promise<ApiKey & { secret: string }> {
  const unknown = input.scopes.filter((s) => !(SCOPES as readonly string[]).includes(s));
  if (unknown.length) {
    throw invalidFields(
      input.scopes.flatMap((s, i) => (unknown.includes(s) ? [{ path: `/scopes/${i}`, message: `unknown scope "${s}"`, code: 'invalid_value' }] : [])),
    );
  }
  const locationIds = input.location_ids && input.location_ids.length ? [...new Set(input.location_ids)] : null;
  await checkLocationIds(ctx.db, ctx.merchantId, input.location_ids, '/location_ids');
  const secret = KEY_PREFIX + randomBytes(32).toString('base64url');
  const row = await ctx.db
    .insertInto('api_keys')
    .values({
      merchant_id: ctx.merchantId,
      label: input.label,
      prefix: secret.slice(0, PREFIX_SHOWN),
      secret_hash: hashSecret(secret),
      scopes: [...new Set(input.scopes)],
      location_ids: locationIds,
    })
    .returning(columns)
    .executeTakeFirstOrThrow();
  return { ...presentApiKey(row), secret };
}

export async function listApiKeys(ctx: Ctx): Promise<ApiKey[]> {
  const rows = await ctx.db
    .selectFrom('api_keys')
    .select(columns)
    .where('merchant_id', '=', ctx.merchantId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
  return rows.map(presentApiKey);
}

export async function getApiKey(ctx: Ctx, id: string): Promise<ApiKey> {
  const row = await ctx.db.selectFrom('api_keys').select(columns).where('merchant_id', '=', ctx.merchantId).where('id', '=', id).executeTakeFirst();
  if (!row) throw notFound('API key');
  return presentApiKey(row);
}

/** Revoking is final and immediate; revoking twice keeps the first time. */
export async function revokeApiKey(ctx: Ctx, id: string): Promise<ApiKey> {
  const row = await ctx.db
    .updateTable('api_keys')
    .set({ revoked_at: sql`coalesce(revoked_at, clock_timestamp())`, updated_at: sql`clock_timestamp()` })
    .where('merchant_id', '=', ctx.merchantId)
    .where('id', '=', id)
    .returning(columns)
    .executeTakeFirst();
  if (!row) throw notFound('API key');
  return presentApiKey(row);
}

export interface ResolvedKey {
  id: string;
  merchant_id: string;
  scopes: string[];
  location_ids: string[] | null;
  revoked_at: Date | null;
  last_used_at: Date | null;
}

export async function findKeyBySecret(db: Database, secret: string): Promise<ResolvedKey | undefined> {
  if (!secret.startsWith(KEY_PREFIX) || secret.length > 200) return undefined;
  return db
    .selectFrom('api_keys')
    .select(['id', 'merchant_id', 'scopes', 'location_ids', 'revoked_at', 'last_used_at'])
    .where('secret_hash', '=', hashSecret(secret))
    .executeTakeFirst();
}

export async function touchApiKey(db: Database, id: string): Promise<void> {
  await db
    .updateTable('api_keys')
    .set({ last_used_at: sql`clock_timestamp()` })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', sql<Date>`clock_timestamp() - interval '60 seconds'`)]))
    .execute();
}

export function assertKnownKey(key: ResolvedKey | undefined): asserts key is ResolvedKey {
  if (!key || key.revoked_at) {
    throw new AppError('unauthorized', key ? 'This API key has been revoked.' : 'The API key is not valid.', undefined, {
      'WWW-Authenticate': 'Bearer',
    });
  }
}
