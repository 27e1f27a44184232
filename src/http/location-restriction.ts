// A record restricted to some of the merchant's locations (an API key, a webhook endpoint):
// `location_ids` as the bodies take it, as it is stored, and the check that every id is one of
// the merchant's. The restriction itself is applied by src/db/scope.ts.
import { Type } from 'typebox';
import type { Database } from '../db/database.ts';
import { ofMerchant, type Scope } from '../db/scope.ts';
import { invalidFields, type FieldError } from './errors.ts';
import { Uuid } from './schemas.ts';

/**
 * `location_ids` in a body: absent or null means every location. An empty list is refused, not read
 * as "every location": a restriction that lost its last location must not quietly widen to all of them.
 */
export const LocationRestriction = Type.Optional(
  Type.Union([Type.Array(Uuid(), { minItems: 1, maxItems: 100, uniqueItems: true }), Type.Null()], {
    description: 'The locations this is limited to; null or absent: every location. An empty list is refused.',
  }),
);

/** As stored: distinct ids, or null for every location. */
export const storedLocationIds = (ids: readonly string[] | null | undefined): string[] | null => (ids ? [...new Set(ids)] : null);

/**
 * 422 naming each location id that is not one of the merchant's, or the empty list itself (as the
 * schema does, for a caller that skips the body schema: the demo seed).
 */
export async function checkLocationIds(db: Database, scope: Scope, ids: readonly string[] | null | undefined, path = '/location_ids'): Promise<void> {
  if (!ids) return;
  if (ids.length === 0) throw invalidFields([{ path, message: 'must NOT have fewer than 1 items', code: 'too_few' }]);
  const rows = await db
    .selectFrom('locations')
    .select('id')
    .where(ofMerchant('locations', scope))
    .where('id', 'in', [...ids])
    .execute();
  const found = new Set(rows.map((r) => r.id));
  const errors: FieldError[] = [];
  ids.forEach((id, i) => {
    if (!found.has(id)) errors.push({ path: `${path}/${i}`, message: 'is not a location of this merchant', code: 'unknown_id' });
  });
  if (errors.length) throw invalidFields(errors);
}
