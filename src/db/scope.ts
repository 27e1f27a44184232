// Whose rows a statement may touch. Every query function takes a Scope first (after the database
// handle), so it cannot be called without a merchant; the two rules below are the only places that
// turn a scope into SQL or into a decision:
//   - the merchant filter: every statement on a merchant's table carries `ofMerchant(table, scope)`,
//     and a row inserted into one is `merchantRow(scope, row)`;
//   - the location rule: a key restricted to some locations sees only rows at those locations.
// Both are used by every list, get, write check, presenter and the webhook narrowing.
import { sql, type Expression, type SqlBool } from 'kysely';

export interface Scope {
  readonly merchantId: string;
  /** Locations the caller may see; null means all of the merchant's locations. */
  readonly locationIds: string[] | null;
}

/** Just the scope's own two values (a request context carries more), to spread into a statement's values (db/statement.ts). */
export const scopeValues = (scope: Scope): Scope => ({ merchantId: scope.merchantId, locationIds: scope.locationIds });

/** A scope that sees every location of the merchant (operator API, portal, worker, seed). */
export const merchantScope = (merchantId: string): Scope => ({ merchantId, locationIds: null });

/** The merchant filter: `<table>.merchant_id = <the scope's merchant>`. */
export function ofMerchant(table: string, scope: Pick<Scope, 'merchantId'>): Expression<SqlBool> {
  return sql<boolean>`${sql.ref(`${table}.merchant_id`)} = ${scope.merchantId}`;
}

/** The merchant filter on a new row: `row` stamped with the scope's merchant (the stamp wins). */
export function merchantRow<R extends object>(scope: Pick<Scope, 'merchantId'>, row: R): R & { merchant_id: string } {
  return { ...row, merchant_id: scope.merchantId };
}

/**
 * The merchant filter inside a record's subqueries: `table`'s rows of the same merchant as the
 * statement's row `outer` (which carries ofMerchant itself). Needs no value, so the record's SQL
 * can be built once (db/fragment.ts).
 */
export function sameMerchantAs(table: string, outer: string): Expression<SqlBool> {
  return sql<boolean>`${sql.ref(`${table}.merchant_id`)} = ${sql.ref(`${outer}.merchant_id`)}`;
}

/** The location rule in SQL: `column` (e.g. `orders.fulfillment_location_id`) names a location the scope may see. */
export function atVisibleLocation(column: string, scope: Pick<Scope, 'locationIds'>): Expression<SqlBool> {
  if (scope.locationIds === null) return sql<boolean>`true`;
  if (scope.locationIds.length === 0) return sql<boolean>`false`;
  return sql<boolean>`${sql.ref(column)} in (${sql.join(scope.locationIds)})`;
}

/**
 * The location rule where the allowed set is itself a column (a webhook endpoint's `location_ids`,
 * null = every location): a row at no location (`locationColumn` null) is admitted by every set.
 */
export function locationsAdmit(allowedColumn: string, locationColumn: string): Expression<SqlBool> {
  const allowed = sql.ref(allowedColumn);
  const location = sql.ref(locationColumn);
  return sql<boolean>`(${allowed} is null or ${location} is null or ${location} = any(${allowed}))`;
}

/** The location rule in code: may the scope see a row at `locationId`? */
export function canSeeLocation(scope: Pick<Scope, 'locationIds'>, locationId: string): boolean {
  return scope.locationIds === null || scope.locationIds.includes(locationId);
}

/** The location rule over rows already read (presenters, the webhook narrowing). */
export function visibleAt<T>(scope: Pick<Scope, 'locationIds'>, rows: readonly T[], locationOf: (row: T) => string): T[] {
  return scope.locationIds === null ? [...rows] : rows.filter((row) => canSeeLocation(scope, locationOf(row)));
}
