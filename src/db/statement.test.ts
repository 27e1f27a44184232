import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabase, type TestDatabase } from '../../test/helpers.ts';
import { Inlined, statement } from './statement.ts';

describe('statements compiled once per shape', () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await testDatabase();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('builds once per shape and runs every call with its own values', async () => {
    const shapes: string[] = [];
    const echo = statement((db, v: { n: number; label: string | null; ids: readonly string[]; at: Date | null }) => {
      shapes.push(`${v.label === null ? 'no label' : 'label'}, ${v.ids.length} ids, ${v.at === null ? 'no at' : 'at'}`);
      let q = db.selectNoFrom([
        sql<number>`${v.n}::int + 1`.as('n'),
        sql<string>`array_to_string(array[${sql.join(v.ids)}]::text[], ',')`.as('ids'),
        sql<string>`'fixed'`.as('fixed'),
      ]);
      if (v.label !== null) q = q.select(sql<string>`${v.label}::text || ${'!'}::text`.as('label'));
      if (v.at !== null) q = q.select(sql<string>`to_char(${v.at}::timestamptz at time zone 'UTC', 'YYYY-MM-DD')`.as('day'));
      return q;
    });
    const at = new Date('2026-03-04T05:06:07.000Z');
    expect(await echo(t.db, { n: 1, label: 'a', ids: ['x', 'y'], at: null })).toEqual([{ n: 2, ids: 'x,y', fixed: 'fixed', label: 'a!' }]);
    expect(await echo(t.db, { n: 41, label: 'b', ids: ['p', 'q'], at: null })).toEqual([{ n: 42, ids: 'p,q', fixed: 'fixed', label: 'b!' }]);
    expect(await echo(t.db, { n: 7, label: null, ids: ['z'], at })).toEqual([{ n: 8, ids: 'z', fixed: 'fixed', day: '2026-03-04' }]);
    expect(await echo(t.db, { n: 8, label: null, ids: ['w'], at: new Date('2027-01-02T00:00:00.000Z') })).toEqual([
      { n: 9, ids: 'w', fixed: 'fixed', day: '2027-01-02' },
    ]);
    expect(await echo(t.db, { n: 3, label: 'c', ids: ['x', 'y'], at: null })).toEqual([{ n: 4, ids: 'x,y', fixed: 'fixed', label: 'c!' }]);
    // Two shapes, each built once, whatever the values.
    expect(shapes).toEqual(['label, 2 ids, no at', 'no label, 1 ids, at']);
  });

  it('writes an Inlined number into its text: a shape per value', async () => {
    const texts: string[] = [];
    const first = statement((db, v: { rows: Inlined; from: number }) => {
      const q = db
        .selectFrom(sql<{ n: number }>`generate_series(${v.from}::int, 100)`.as('n'))
        .select(sql<number>`n`.as('n'))
        .limit(sql.lit(v.rows.value));
      texts.push(q.compile().sql);
      return q;
    });
    expect(await first(t.db, { rows: new Inlined(2), from: 5 })).toEqual([{ n: 5 }, { n: 6 }]);
    expect(await first(t.db, { rows: new Inlined(2), from: 9 })).toEqual([{ n: 9 }, { n: 10 }]);
    expect(await first(t.db, { rows: new Inlined(3), from: 1 })).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
    expect(texts).toHaveLength(2);
    expect(texts.map((text) => /limit (\S+)$/.exec(text)?.[1])).toEqual(['2', '3']);
    expect(() => new Inlined(1.5)).toThrow(/only an integer/);
  });

  it('runs inside a transaction on its handle', async () => {
    const count = statement((db, v: { marker: string }) =>
      db.selectNoFrom(sql<number>`(select count(*)::int from pg_temp.marks where m = ${v.marker})`.as('count')),
    );
    await t.db.transaction().execute(async (trx) => {
      await sql`create temporary table marks (m text) on commit drop`.execute(trx);
      await sql`insert into marks values ('seen'), ('seen')`.execute(trx);
      expect(await count(trx, { marker: 'seen' })).toEqual([{ count: 2 }]);
      expect(await count(trx, { marker: 'other' })).toEqual([{ count: 0 }]);
    });
  });

  it('refuses a build that computes with a value or writes it into the text', async () => {
    const computed = statement((db, v: { limit: number }) => db.selectNoFrom(sql<number>`1`.as('one')).limit(v.limit + 1));
    await expect(computed(t.db, { limit: 5 })).rejects.toThrow(/computed with a value instead of binding it/);
    const inlined = statement((db, v: { name: string }) => db.selectNoFrom(sql.lit(v.name).as('name')));
    await expect(inlined(t.db, { name: 'x' })).rejects.toThrow(/written into its text/);
  });
});
