// Money, one rule for every amount the API accepts (contract: a JSON number with at most 2
// decimals, stored exactly): the schema bounds the range, the decimals are checked on the number's
// decimal text (exact, unlike arithmetic on floats), and sums are taken in integer cents.
import { Type } from 'typebox';
import type { FieldError } from './errors.ts';

/** The largest amount numeric(12,2) keeps. */
export const MAX_MONEY = 9_999_999_999.99;

/** A money field's schema; `maximum` only where a field is bounded below what the column keeps. */
export const Money = (description: string, maximum = MAX_MONEY) => Type.Number({ minimum: 0, maximum, description: `${description}; at most 2 decimals` });

/** At most 2 decimals, read from the number's shortest decimal text (1e-7 and 0.125 are refused). */
export const hasTwoDecimals = (value: number) => /^\d+(\.\d{1,2})?$/.test(String(value));

/** The money rule as a field error (null when the amount is acceptable or absent). */
export function moneyProblem(value: number | null | undefined, path: string, maximum = MAX_MONEY): FieldError | null {
  if (value === null || value === undefined) return null;
  if (!hasTwoDecimals(value) || value > maximum) return { path, message: 'must be a non-negative amount with at most 2 decimals', code: 'invalid_format' };
  return null;
}

export const toCents = (value: string | number) => Math.round(Number(value) * 100);
export const centsToString = (cents: number) => `${Math.trunc(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
