// SQL fragments compiled once. Kysely builds every statement as a tree of operation nodes and
// compiles the tree to text on each run; a large constant fragment (a record's json_build_object)
// rebuilt and recompiled per request was the biggest part of a read's own CPU. A fragment without
// values is compiled here once, when the module loads, and then takes part in statements as one
// piece of raw text.
import { PostgresQueryCompiler, createQueryId, sql, type Expression, type RawBuilder } from 'kysely';

const compiler = new PostgresQueryCompiler();

/** `fragment` as fixed text; it must not carry values (a value would need a parameter on every run). */
export function frozen<T>(fragment: RawBuilder<T>): RawBuilder<T> {
  const compiled = compiler.compileQuery(fragment.toOperationNode(), createQueryId());
  if (compiled.parameters.length > 0) throw new Error(`a frozen SQL fragment cannot carry values: ${compiled.sql}`);
  return sql.raw<T>(compiled.sql);
}

/** `json_build_object('key', value, …)`, keys in the order of `fields`. */
export const jsonObject = (fields: Record<string, Expression<unknown>>) =>
  sql`json_build_object(${sql.join(Object.entries(fields).map(([key, value]) => sql`${sql.lit(key)}, ${value}`))})`;

/** Columns of the row `alias` under the names a record shows them by: `{ shown_name: 'column' }`. */
export const columnsOf = (alias: string, names: Record<string, string>): Record<string, Expression<unknown>> =>
  Object.fromEntries(Object.entries(names).map(([shown, column]) => [shown, sql.ref(`${alias}.${column}`)]));
