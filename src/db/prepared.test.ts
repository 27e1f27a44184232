import pg from 'pg';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabase, onPostgres, type TestDatabase } from '../../test/helpers.ts';
import { isConnectionFailure, postgresDatabase, withoutQueryTimeout, type DatabaseHandle } from './database.ts';
import { copyInto } from './copy.ts';
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

// src/db/prepared.ts: pg's promise mode kept every result through minor GCs (1.8 × the CPU per request under load).
describe.runIf(onPostgres())('statements sent to pg', () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await testDatabase();
  });
  afterAll(async () => {
    await t?.close();
  });

  /** Every call Kysely's statements make to pg's own Client.query, with whether it passed a callback. */
  async function callsTo(preparedStatements: boolean, run: (handle: DatabaseHandle) => Promise<void>) {
    const calls: { text: string; callback: boolean }[] = [];
    const original = pg.Client.prototype.query;
    pg.Client.prototype.query = function (this: pg.Client, config: unknown, values?: unknown, callback?: unknown) {
      const text = typeof config === 'string' ? config : (config as { text?: string })?.text;
      if (text?.includes('sent_by_test')) calls.push({ text, callback: typeof callback === 'function' || typeof values === 'function' });
      return (original as (...args: unknown[]) => unknown).call(this, config, values, callback);
    } as typeof original;
    const handle = postgresDatabase(t.url!, 1, undefined, undefined, preparedStatements);
    try {
      await run(handle);
    } finally {
      pg.Client.prototype.query = original;
      await handle.close();
    }
    return calls;
  }

  it.each([true, false])('go in callback mode, named or not (prepared statements %s), and answer with their rows', async (preparedStatements) => {
    const calls = await callsTo(preparedStatements, async (handle) => {
      for (let run = 0; run < PREPARE_AFTER + 1; run++) {
        expect((await sql<{ n: number }>`select ${run}::int + 7 as n, 'sent_by_test' as tag`.execute(handle.db)).rows).toEqual([
          { n: run + 7, tag: 'sent_by_test' },
        ]);
      }
    });
    expect(calls).toHaveLength(PREPARE_AFTER + 1);
    expect(calls.every((c) => c.callback)).toBe(true);
  });

  // Straight to the pooled client (Kysely adds its caller's stack to errors itself): the stack is
  // the wrapper's doing.
  it("a failing statement rejects with PostgreSQL's error, its stack leading back to the caller", async () => {
    await callsTo(true, async (handle) => {
      const client = await handle.pool!.connect();
      try {
        const err = await client.query('select 1 / 0 as sent_by_test', []).then(
          () => null,
          (e: unknown) => e as Error & { code?: string },
        );
        expect(err?.code).toBe('22012');
        expect(err?.message).toBe('division by zero');
        expect(err?.stack).toContain('prepared.test.ts');
      } finally {
        client.release();
      }
    });
  });
});

describe.runIf(onPostgres())('the statement deadline (DATABASE_QUERY_TIMEOUT_MS)', () => {
  let t: TestDatabase;
  let handle: DatabaseHandle;
  beforeAll(async () => {
    t = await testDatabase();
    handle = postgresDatabase(t.url!, 1, undefined, undefined, true, 1000);
  });
  afterAll(async () => {
    await handle?.close();
    await t?.close();
  });

  it('a statement past it fails as a lost connection, and the next one gets a fresh connection', async () => {
    const before = (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(handle.db)).rows[0].pid;
    const err = await sql`select pg_sleep(1.5)`.execute(handle.db).catch((e: unknown) => e);
    expect([(err as Error).message, isConnectionFailure(err)]).toEqual(['Query read timeout', true]);
    const after = (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(handle.db)).rows[0].pid;
    expect(after).not.toBe(before);
  });

  it("is not pg's query_timeout, whose timer per statement kept the statement's rows from minor GCs", async () => {
    // Measured: every list page at about twice the Node CPU (docs/decisions.md). The deadline above
    // holds with the option unset.
    const client = await handle.pool!.connect();
    try {
      expect([
        handle.pool!.options.query_timeout,
        (client as unknown as { connectionParameters: { query_timeout: unknown } }).connectionParameters.query_timeout,
      ]).toEqual([undefined, false]);
    } finally {
      client.release();
    }
  });

  it('a COPY past it fails the same way, and the pool drops its connection', async () => {
    await sql`create table copy_deadline (a text)`.execute(handle.db);
    const locker = new pg.Client({ connectionString: t.url! });
    await locker.connect();
    try {
      await locker.query('begin; lock table copy_deadline in access exclusive mode');
      const started = Date.now();
      const err = await copyInto(handle.pool!, 'copy_deadline', ['a'])('x\n').catch((e: unknown) => e);
      const waited = Date.now() - started;
      expect([(err as Error).message, isConnectionFailure(err)]).toEqual(['Query read timeout', true]);
      expect(waited).toBeGreaterThanOrEqual(1000);
      expect(waited).toBeLessThan(3000);
      await locker.query('rollback');
      expect((handle.pool as pg.Pool).totalCount).toBe(0);
      await copyInto(handle.pool!, 'copy_deadline', ['a'])('y\n');
      expect((await sql<{ a: string }>`select a from copy_deadline`.execute(handle.db)).rows).toEqual([{ a: 'y' }]);
    } finally {
      await locker.end();
    }
  });

  it('migrations run without it: they may build an index over a large table', async () => {
    expect(await withoutQueryTimeout(handle, async (db) => (await sql<{ ok: number }>`select 1 as ok from pg_sleep(1.5)`.execute(db)).rows)).toEqual([
      { ok: 1 },
    ]);
  });
});
