// Rules shared by products, collections and social videos: handles, reference checks.
import { sql } from 'kysely';
import type { Database } from '../../db/database.ts';
import { invalidFields, type FieldError } from '../../http/errors.ts';

/** "Blue Shirt!" → "blue-shirt" (contract §6). */
export function slugify(text: string): string {
  const slug = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return slug.slice(0, 200).replace(/-+$/, '') || 'item';
}

/** The first free handle among base, base-2, base-3… for this merchant's products or collections. */
export async function uniqueHandle(trx: Database, table: 'products' | 'collections', merchantId: string, wanted: string, exceptId?: string) {
  const base = slugify(wanted);
  const taken = await trx
    .selectFrom(table)
    .select('handle')
    .where('merchant_id', '=', merchantId)
    .where((eb) => eb.or([eb('handle', '=', base), eb('handle', 'like', `${base}-%`)]))
    .$if(!!exceptId, (q) => q.where('id', '!=', exceptId!))
    .execute();
  const set = new Set(taken.map((r) => r.handle));
  if (!set.has(base)) return base;
  for (let n = 2; ; n++) if (!set.has(`${base}-${n}`)) return `${base}-${n}`;
}

type RefTable = 'vendors' | 'tags' | 'media_assets' | 'products' | 'collections' | 'locations';

export interface RefCheck {
  table: RefTable;
  /** [JSON pointer, id] pairs. */
  refs: [string, string][];
  what: string;
}

/** 422 naming every id that is not the merchant's (one query per table). */
export async function checkRefs(trx: Database, merchantId: string, checks: RefCheck[]): Promise<void> {
  const errors: FieldError[] = [];
  for (const c of checks) {
    if (c.refs.length === 0) continue;
    const ids = [...new Set(c.refs.map(([, id]) => id))];
    const found = new Set(
      (await trx.selectFrom(c.table).select('id').where('merchant_id', '=', merchantId).where('id', 'in', ids).execute()).map((r) => r.id),
    );
    for (const [path, id] of c.refs) if (!found.has(id)) errors.push({ path, message: `is not a ${c.what} of this merchant`, code: 'unknown_id' });
  }
  if (errors.length) throw invalidFields(errors);
}

export const refList = (path: string, ids: string[] | undefined): [string, string][] => (ids ?? []).map((id, i) => [`${path}/${i}`, id]);
export const refOne = (path: string, id: string | null | undefined): [string, string][] => (id ? [[path, id]] : []);

export const now = sql<Date>`clock_timestamp()`;

/** Money: a number with at most 2 decimals in range, checked exactly on its decimal text. */
export function moneyProblem(value: number | null | undefined, path: string): FieldError | null {
  if (value === null || value === undefined) return null;
  if (!/^\d{1,10}(\.\d{1,2})?$/.test(String(value)) || value > 9_999_999_999.99) {
    return { path, message: 'must be a non-negative amount with at most 2 decimals', code: 'invalid_format' };
  }
  return null;
}
