import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabase, onPostgres, type TestDatabase } from '../../test/helpers.ts';
import { postgresDatabase, type DatabaseHandle } from './database.ts';
import { MAX_NAMED, PREPARE_AFTER } from './prepared.ts';

// PostgreSQL only: PGlite runs in-process and has no prepared statements to keep.
describe.runIf(onPostgres())('statements prepared by name', () => {
  let t: TestDatabase;
  let one: DatabaseHandle; // one connection, so pg_prepared_statements is the pool's whole session
  beforeAll(async () => {
    t = await testDatabase();
    one = postgresDatabase(t.url!, 1);
  });
  afterAll(async () => {
    await one?.close();
    await t?.close();
  });

  const prepared = async () =>
    (await sql<{ name: string; statement: string }>`select name, statement from pg_prepared_statements order by name`.execute(one.db)).rows;

  it(`a statement run ${PREPARE_AFTER} times is prepared once and answers the same with each run's values`, async () => {
    const add = (n: number) => sql<{ n: number }>`select ${n}::int + 1 as n`.execute(one.db);
    expect((await add(1)).rows).toEqual([{ n: 2 }]);
    expect((await prepared()).filter((p) => p.statement.includes('+ 1 as n'))).toEqual([]);
    expect((await add(2)).rows).toEqual([{ n: 3 }]);
    expect((await add(41)).rows).toEqual([{ n: 42 }]);
    const named = (await prepared()).filter((p) => p.statement.includes('+ 1 as n'));
    expect(named).toHaveLength(1);
    expect(named[0].name).toMatch(/^s\d+$/);
  });

  it(`a process names at most ${MAX_NAMED} statements; the rest run unnamed and still answer`, async () => {
    for (let i = 0; i < MAX_NAMED + 20; i++) {
      for (let run = 0; run < PREPARE_AFTER; run++) {
        const { rows } = await sql<{ n: number }>`select ${i}::int as n, ${sql.lit(i)} as k`.execute(one.db);
        expect(rows[0].n).toBe(i);
      }
    }
    expect((await prepared()).length).toBe(MAX_NAMED);
  });

  it('DATABASE_PREPARED_STATEMENTS=false (a transaction-mode pooler): every statement runs unnamed', async () => {
    const unnamed = postgresDatabase(t.url!, 1, undefined, undefined, false);
    try {
      for (let run = 0; run < PREPARE_AFTER + 2; run++) {
        expect((await sql<{ n: number }>`select ${run}::int * 2 as n`.execute(unnamed.db)).rows).toEqual([{ n: run * 2 }]);
      }
      expect((await sql<{ count: string }>`select count(*) from pg_prepared_statements`.execute(unnamed.db)).rows[0].count).toBe('0');
    } finally {
      await unnamed.close();
    }
  });
});
