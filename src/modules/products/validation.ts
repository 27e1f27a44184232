// The rules a variant set must keep before it is written: prices, SKUs unique in the request and
// among the merchant's native variants, ids that belong to the product.
import type { Database } from '../../db/database.ts';
import type { Scope } from '../../db/scope.ts';
import { AppError, type FieldError } from '../../http/errors.ts';
import { moneyProblem } from '../../http/money.ts';
import { selectTakenSkus } from './queries.ts';
import type { VariantInput } from './schemas.ts';

/** A variant's amounts: money with at most 2 decimals, weight with at most 3 (native and connected alike). */
export function variantAmountProblems(v: { price?: number; compare_at_price?: number | null; weight?: number | null }, base: string): FieldError[] {
  const errors: FieldError[] = [];
  for (const field of ['price', 'compare_at_price'] as const) {
    const p = moneyProblem(v[field], `${base}/${field}`);
    if (p) errors.push(p);
  }
  // Stored as numeric(12,3): a fourth decimal was rounded away without a word.
  if (v.weight !== undefined && v.weight !== null && !/^\d+(\.\d{1,3})?$/.test(String(v.weight))) {
    errors.push({ path: `${base}/weight`, message: 'must have at most 3 decimals', code: 'invalid_format' });
  }
  return errors;
}

export function variantProblems(variants: VariantInput[], requirePrice: (v: VariantInput) => boolean): FieldError[] {
  const errors: FieldError[] = [];
  const skus = new Map<string, number>();
  variants.forEach((v, i) => {
    if (requirePrice(v) && v.price === undefined) errors.push({ path: `/variants/${i}/price`, message: 'is required', code: 'required' });
    errors.push(...variantAmountProblems(v, `/variants/${i}`));
    if (v.sku) {
      if (skus.has(v.sku)) errors.push({ path: `/variants/${i}/sku`, message: `repeats the SKU of /variants/${skus.get(v.sku)}`, code: 'duplicate' });
      else skus.set(v.sku, i);
    }
  });
  return errors;
}

/** Problems of variant ids in a PATCH: each must be one of the product's, listed once. */
export function variantIdProblems(variants: VariantInput[], own: Set<string>): FieldError[] {
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  variants.forEach((v, i) => {
    if (v.id && seen.has(v.id)) errors.push({ path: `/variants/${i}/id`, message: 'is listed twice', code: 'duplicate' });
    else if (v.id && !own.has(v.id)) errors.push({ path: `/variants/${i}/id`, message: 'is not a variant of this product', code: 'unknown_id' });
    if (v.id) seen.add(v.id);
  });
  return errors;
}

/**
 * SKUs already used by another native variant of the merchant, named at their first place in the
 * request (a repeat of it is named `duplicate` by variantProblems).
 */
export async function takenSkuProblems(trx: Database, scope: Scope, variants: VariantInput[], keptIds: string[]): Promise<FieldError[]> {
  const skus = variants.map((v) => v.sku).filter((s): s is string => !!s);
  if (skus.length === 0) return [];
  const taken = await selectTakenSkus(trx, scope, skus, keptIds);
  const errors: FieldError[] = [];
  const named = new Set<string>();
  variants.forEach((v, i) => {
    if (!v.sku || !taken.has(v.sku) || named.has(v.sku)) return;
    named.add(v.sku);
    errors.push({ path: `/variants/${i}/sku`, message: `"${v.sku}" is already used by another variant`, code: 'taken' });
  });
  return errors;
}

/** A concurrent write took a SKU between the check and the write: the same 422, without a row pointer. */
export function skuTakenMeanwhile(err: unknown): AppError | null {
  const e = err as { code?: string; constraint?: string };
  if (e.code !== '23505' || e.constraint !== 'variants_native_sku') return null;
  return new AppError('validation_failed', 'A SKU is already used by another variant.', [
    { path: '/variants', message: 'a SKU is already used by another variant', code: 'taken' },
  ]);
}
