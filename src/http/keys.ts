// Finding the API key a request presents. Keys are stored as the SHA-256 of their secret (the
// secret is shown once, at creation: src/modules/api-keys); this is the lookup request
// authentication needs, below the modules so that src/http/auth.ts depends on nothing above it.
import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type { Database } from '../db/database.ts';

// A fixed, greppable prefix lets secret scanners recognise leaked keys.
export const KEY_PREFIX = 'mia_sk_';

export const hashSecret = (secret: string) => createHash('sha256').update(secret).digest('hex');

/** A key as authentication sees it (revoked ones too: the request log names them). */
export interface PresentedKey {
  id: string;
  merchant_id: string;
  scopes: string[];
  location_ids: string[] | null;
  revoked_at: Date | null;
}

export async function findKeyBySecret(db: Database, secret: string): Promise<PresentedKey | undefined> {
  if (!secret.startsWith(KEY_PREFIX) || secret.length > 200) return undefined;
  return db
    .selectFrom('api_keys')
    .select(['id', 'merchant_id', 'scopes', 'location_ids', 'revoked_at'])
    .where('secret_hash', '=', hashSecret(secret))
    .executeTakeFirst();
}

/** last_used_at, at most once a minute per key (the statement itself skips a fresher one). */
export async function touchApiKey(db: Database, key: Pick<PresentedKey, 'id' | 'merchant_id'>): Promise<void> {
  await db
    .updateTable('api_keys')
    .set({ last_used_at: sql`clock_timestamp()` })
    .where('merchant_id', '=', key.merchant_id)
    .where('id', '=', key.id)
    .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', sql<Date>`clock_timestamp() - interval '60 seconds'`)]))
    .execute();
}
