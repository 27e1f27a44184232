// API keys: the secret is shown once; only its SHA-256 hash is stored. Shared by the operator API,
// the portal and the operator CLI (request authentication reads keys through src/http/keys.ts).
import { randomBytes } from 'node:crypto';
import type { Ctx } from '../../http/context.ts';
import { invalidFields, notFound } from '../../http/errors.ts';
import { hashSecret, KEY_PREFIX, keyStore } from '../../http/keys.ts';
import { checkLocationIds, storedLocationIds } from '../../http/location-restriction.ts';
import { iso, isoOrNull } from '../../http/serialize.ts';
import { SCOPES, type Scope } from '../../http/scopes.ts';
import { countKeyListeners, insertApiKey, markRevoked, selectApiKey, selectApiKeys, type ApiKeyRow } from './queries.ts';
import type { ApiKey, ApiKeyBody } from './schemas.ts';

// The column holds what the body schema let in; the guard gives the presenter the published enum's type.
const known = new Set<string>(SCOPES);
const isScope = (scope: string): scope is Scope => known.has(scope);

const PREFIX_SHOWN = KEY_PREFIX.length + 6;

export function presentApiKey(k: ApiKeyRow): ApiKey {
  return {
    id: k.id,
    label: k.label,
    prefix: k.prefix,
    scopes: k.scopes.filter(isScope),
    location_ids: k.location_ids,
    created_at: iso(k.created_at),
    last_used_at: isoOrNull(k.last_used_at),
    revoked_at: isoOrNull(k.revoked_at),
  };
}

export async function createApiKey(ctx: Ctx, input: ApiKeyBody): Promise<ApiKey & { secret: string }> {
  // The CLI's --scopes reach here unchecked by the route schema's enum.
  const known = new Set<string>(SCOPES);
  if (input.scopes.some((s) => !known.has(s))) {
    throw invalidFields(
      input.scopes.flatMap((s, i) => (known.has(s) ? [] : [{ path: `/scopes/${i}`, message: `unknown scope "${s}"`, code: 'invalid_value' as const }])),
    );
  }
  await checkLocationIds(ctx.db, ctx, input.location_ids);
  const secret = KEY_PREFIX + randomBytes(32).toString('base64url');
  const row = await insertApiKey(ctx.db, ctx, {
    label: input.label,
    prefix: secret.slice(0, PREFIX_SHOWN),
    secret_hash: hashSecret(secret),
    scopes: [...new Set(input.scopes)],
    location_ids: storedLocationIds(input.location_ids),
  });
  return { ...presentApiKey(row), secret };
}

// Each read of the records first writes the last_used_at touches this process has collected.

export async function listApiKeys(ctx: Ctx): Promise<ApiKey[]> {
  await keyStore(ctx.db).flushTouches();
  return (await selectApiKeys(ctx.db, ctx)).map(presentApiKey);
}

export async function getApiKey(ctx: Ctx, id: string): Promise<ApiKey> {
  await keyStore(ctx.db).flushTouches();
  const row = await selectApiKey(ctx.db, ctx, id);
  if (!row) throw notFound('API key');
  return presentApiKey(row);
}

/**
 * Revoking is final and immediate, in every API process (src/http/keys.ts): this one forgets the
 * key here, the others on the statement's NOTIFY, and the answer waits until they have said so.
 * Revoking twice keeps the first time.
 */
export async function revokeApiKey(ctx: Ctx, id: string): Promise<ApiKey> {
  const keys = keyStore(ctx.db);
  await keys.flushTouches();
  const forgotten = keys.awaitForgotten(id);
  try {
    const row = await markRevoked(ctx.db, ctx, id);
    if (!row) throw notFound('API key');
    keys.forget(row.id);
    if (forgotten.canHear) await forgotten.wait(await countKeyListeners(ctx.db));
    return presentApiKey(row);
  } finally {
    forgotten.cancel();
  }
}
