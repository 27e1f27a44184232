// Statements on one of a merchant's rows by its id, for any table keyed by `id` with a
// `merchant_id` and an `updated_at`: insert it (answering the new id), update it (stamping
// updated_at) and lock it for the rest of the transaction. Each carries the merchant filter.
// Kysely cannot type a builder over a table named by a type parameter, so they are written with
// sql fragments and typed by their signatures: the same statements the builder writes for one table.
import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import type { Database } from './database.ts';
import type { DB } from './schema.ts';
import { merchantRow, ofMerchant, type Scope } from './scope.ts';

/** The tables whose rows a merchant owns by id and that stamp their changes. */
export type MerchantTable = { [T in keyof DB]: DB[T] extends { id: unknown; merchant_id: string; updated_at: unknown } ? T : never }[keyof DB];

/** Insert values without the merchant: the scope gives it. */
export type NewRow<T extends MerchantTable> = Omit<Insertable<DB[T]>, 'merchant_id'>;

/** `[column, value]` of every property given (an undefined one is left out, as Kysely does). */
const given = (values: object): [string, unknown][] => Object.entries(values).filter(([, value]) => value !== undefined);

/** The database's clock at the statement, for updated_at. */
export const now = sql<Date>`clock_timestamp()`;

const byId = (table: MerchantTable, scope: Scope, id: string) => sql`${ofMerchant(table, scope)} and ${sql.ref('id')} = ${id}`;

export async function insertRow<T extends MerchantTable>(db: Database, scope: Scope, table: T, values: NewRow<T>): Promise<string> {
  const columns = given(merchantRow(scope, values));
  const { rows } = await sql<{ id: string }>`
    insert into ${sql.table(table)} (${sql.join(columns.map(([column]) => sql.ref(column)))})
    values (${sql.join(columns.map(([, value]) => value))}) returning ${sql.ref('id')}`.execute(db);
  return rows[0].id;
}

/** Set the columns given and updated_at to the statement's clock. */
export async function updateRow<T extends MerchantTable>(db: Database, scope: Scope, table: T, id: string, set: Updateable<DB[T]>): Promise<void> {
  const changes = given({ ...set, updated_at: now }).map(([column, value]) => sql`${sql.ref(column)} = ${value}`);
  await sql`update ${sql.table(table)} set ${sql.join(changes)} where ${byId(table, scope, id)}`.execute(db);
}

/** The row's `columns`, locked until the transaction ends (undefined: no such row of the merchant). */
export async function lockRow<T extends MerchantTable, C extends keyof Selectable<DB[T]> & string>(
  db: Database,
  scope: Scope,
  table: T,
  id: string,
  columns: readonly C[],
): Promise<Pick<Selectable<DB[T]>, C> | undefined> {
  const { rows } = await sql<Pick<Selectable<DB[T]>, C>>`
    select ${sql.join(columns.map((column) => sql.ref(column)))} from ${sql.table(table)} where ${byId(table, scope, id)} for update`.execute(db);
  return rows[0];
}

/**
 * The rows of `ids` in the order of `ids` (each id once); ids `read` finds no row for are left out.
 * `read` gets the distinct ids and runs one statement; none for an empty list.
 */
export async function inIdOrder<R extends { id: string }>(ids: string[], read: (unique: string[]) => Promise<R[]>): Promise<R[]> {
  if (ids.length === 0) return [];
  const unique = [...new Set(ids)];
  const byId = new Map((await read(unique)).map((row) => [row.id, row]));
  return unique.flatMap((id) => byId.get(id) ?? []);
}
