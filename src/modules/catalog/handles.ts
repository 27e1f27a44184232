// Handles of products and collections: URL-safe, unique per merchant (-2, -3…), contract §6.
import type { Database } from '../../db/database.ts';
import type { Scope } from '../../db/scope.ts';
import { lockName, selectHandles, underSavepoint, type HandleTable } from './queries.ts';

/**
 * "Blue Shirt!" → "blue-shirt" (contract §6): ASCII letters (lower-cased) and digits stay, each run
 * of other characters becomes one "-", none at either end. Nothing is transliterated ("Café Crème" →
 * "caf-cr-me"), as the rule says; a title with no ASCII letter or digit at all gets "item".
 */
export function slugify(text: string): string {
  const slug = text
    .replace(/[^A-Za-z0-9]+/g, '-')
    .toLowerCase()
    .replace(/^-+|-+$/g, '');
  return slug.slice(0, 200).replace(/-+$/, '') || 'item';
}

/** The first free handle among base, base-2, base-3… for this merchant's products or collections. */
export async function uniqueHandle(trx: Database, scope: Scope, table: HandleTable, wanted: string, exceptId?: string): Promise<string> {
  const base = slugify(wanted);
  const taken = await selectHandles(trx, scope, table, base, exceptId);
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) if (!taken.has(`${base}-${n}`)) return `${base}-${n}`;
}

const handleTaken = (err: unknown) => {
  const e = err as { code?: string; constraint?: string };
  return e.code === '23505' && String(e.constraint ?? '').endsWith('_handle');
};

/**
 * Insert with the first free handle. A concurrent insert that took it first makes us take the
 * merchant's lock on this handle's base and try the next free one: writers that lost once take
 * turns, so eight creates of one title at once all succeed (each used to retry into the same
 * next handle as the others, and gave up after seven tries with a 500). Each further loss means
 * another transaction committed a handle of this base, so the bound is never reached in practice.
 */
export async function insertWithHandle<T>(trx: Database, scope: Scope, table: HandleTable, wanted: string, insert: (handle: string) => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    const handle = await uniqueHandle(trx, scope, table, wanted);
    try {
      return await underSavepoint(trx, () => insert(handle));
    } catch (err) {
      if (!handleTaken(err) || attempt >= 100) throw err;
      if (attempt === 0) await lockName(trx, scope, `${table}.handle|${slugify(wanted)}`);
    }
  }
}
