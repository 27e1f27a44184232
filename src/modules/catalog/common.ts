// Rules shared by products, collections, social videos and connected sync: reference checks,
// JSON pointers for them (money: src/http/money.ts).
import type { Database } from '../../db/database.ts';
import type { Scope } from '../../db/scope.ts';
import { invalidFields, type FieldError } from '../../http/errors.ts';
import { selectOwnIds, type OwnedTable, type OwnKind } from './queries.ts';

export interface RefCheck {
  table: OwnedTable;
  /** [JSON pointer, id] pairs. */
  refs: [string, string][];
  what: string;
  /** Media assets: only this kind will do. */
  kind?: 'image' | 'video';
}

/**
 * 422 naming every id that is not the merchant's (one query per table), after the problems the
 * caller found already (`earlier`), so that one answer names them all.
 */
export async function checkRefs(trx: Database, scope: Scope, checks: RefCheck[], earlier: FieldError[] = []): Promise<void> {
  const errors = [...earlier, ...(await refProblems(trx, scope, checks))];
  if (errors.length) throw invalidFields(errors);
}

/**
 * Every id of the checks that is not the merchant's (or not of the check's kind), as field errors:
 * one query per table, however many checks name it.
 */
export async function refProblems(trx: Database, scope: Scope, checks: RefCheck[]): Promise<FieldError[]> {
  const found = new Map<OwnedTable, Map<string, OwnKind>>();
  for (const [table, tableChecks] of Map.groupBy(checks, (c) => c.table)) {
    const ids = new Set(tableChecks.flatMap((c) => c.refs.map(([, id]) => id)));
    if (ids.size) found.set(table, await selectOwnIds(trx, scope, table, [...ids]));
  }
  const errors: FieldError[] = [];
  for (const c of checks) {
    const article = /^[aeiou]/.test(c.what) ? 'an' : 'a';
    const own = found.get(c.table);
    for (const [path, id] of c.refs) {
      const kind = own?.get(id);
      if (kind === undefined || (c.kind !== undefined && kind !== c.kind))
        errors.push({ path, message: `is not ${article} ${c.what} of this merchant`, code: 'unknown_id' });
    }
  }
  return errors;
}

export const refList = (path: string, ids: string[] | undefined): [string, string][] => (ids ?? []).map((id, i) => [`${path}/${i}`, id]);
export const refOne = (path: string, id: string | null | undefined): [string, string][] => (id ? [[path, id]] : []);
