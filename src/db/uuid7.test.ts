import { PGlite } from '@electric-sql/pglite';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabase, type TestDatabase } from '../../test/helpers.ts';
import { PGLITE_PARSERS, PGLITE_START_PARAMS, pgliteDatabase, type DatabaseHandle } from './database.ts';
import { migrations } from './migrate.ts';
import { monotonicUuidV7, uuidV7Floor } from './uuid7.ts';

const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
/** The millisecond in a UUIDv7's first 48 bits. */
const msOf = (id: string) => parseInt(id.slice(0, 8) + id.slice(9, 13), 16);

describe('request ids (UUIDv7)', () => {
  it('each id sorts after the one made before it, within a millisecond too, and says when it was made', () => {
    const before = Date.now();
    const ids = Array.from({ length: 100_000 }, () => monotonicUuidV7());
    const after = Date.now();
    const outOfOrder = ids.filter((id, i) => i > 0 && id <= ids[i - 1]).length;
    expect(outOfOrder).toBe(0);
    expect(ids.filter((id) => !V7.test(id))).toEqual([]);
    // 100,000 ids take more than one millisecond: the counter starts again at each new one.
    expect(new Set(ids.map(msOf)).size).toBeGreaterThan(1);
    expect(msOf(ids[0])).toBeGreaterThanOrEqual(before);
    // Up to one borrowed millisecond per 4,096 ids made within one.
    expect(msOf(ids[ids.length - 1])).toBeLessThanOrEqual(after + Math.ceil(ids.length / 4096));
  });

  describe('the floor of an instant, in SQL', () => {
    let t: TestDatabase;
    beforeAll(async () => {
      t = await testDatabase();
    });
    afterAll(() => t?.close());

    it('sorts below every id of that millisecond and later, above every id of an earlier one', async () => {
      const at = new Date('2026-03-04T05:06:07.089Z');
      const hex = at.getTime().toString(16).padStart(12, '0');
      const idAt = (ms: string, rest: string) => `${ms.slice(0, 8)}-${ms.slice(8)}-${rest}`;
      const previousMs = (at.getTime() - 1).toString(16).padStart(12, '0');
      const { rows } = await sql<{ floor: string; same: boolean; later: boolean; earlier: boolean }>`
        select ${uuidV7Floor(sql`${at.toISOString()}::timestamptz`)}::text as floor,
               ${idAt(hex, '7000-8000-000000000000')}::uuid >= ${uuidV7Floor(sql`${at.toISOString()}::timestamptz`)} as same,
               ${idAt((at.getTime() + 1).toString(16).padStart(12, '0'), '7000-8000-000000000000')}::uuid >= ${uuidV7Floor(sql`${at.toISOString()}::timestamptz`)} as later,
               ${idAt(previousMs, '7fff-bfff-ffffffffffff')}::uuid < ${uuidV7Floor(sql`${at.toISOString()}::timestamptz`)} as earlier`.execute(t.db);
      expect(rows).toEqual([{ floor: idAt(hex, '0000-0000-000000000000'), same: true, later: true, earlier: true }]);
    });
  });
});

describe('migration 0014: the request log keyed by its request id', () => {
  let handle: DatabaseHandle;
  beforeAll(async () => {
    const pglite = new PGlite({ parsers: PGLITE_PARSERS, startParams: PGLITE_START_PARAMS });
    await pglite.waitReady;
    handle = pgliteDatabase(pglite);
  });
  afterAll(() => handle?.close());

  it('keeps every logged request, with two indexes where there were five, and refuses a second row of one request', async () => {
    const db = handle.db;
    const index = migrations.findIndex((m) => m.name === '0014_request_log_lean');
    for (const m of migrations.slice(0, index)) for (const statement of m.statements) await sql.raw(statement).execute(db);
    const ids = [monotonicUuidV7(), monotonicUuidV7(), monotonicUuidV7()];
    const merchant = '0b0e0c00-0000-4000-8000-000000000001';
    for (const [i, id] of ids.entries()) {
      await sql`insert into request_log (merchant_id, api_key_id, request_id, method, path, query, status, error_code, duration_ms, problem, created_at)
                values (${merchant}, ${merchant}, ${id}, 'GET', ${`/p/${i}`}, null, 200, null, 1.5, null, clock_timestamp())`.execute(db);
    }
    for (const statement of migrations[index].statements) await sql.raw(statement).execute(db);

    const rows = await sql<{ request_id: string; path: string }>`select request_id, path from request_log order by request_id desc`.execute(db);
    expect(rows.rows).toEqual([...ids].reverse().map((id, i) => ({ request_id: id, path: `/p/${2 - i}` })));
    const indexes = await sql<{ indexname: string; indexdef: string }>`
      select indexname, indexdef from pg_indexes where tablename = 'request_log' order by indexname`.execute(db);
    expect(indexes.rows.map((r) => [r.indexname, r.indexdef.replace(/^.* USING /, '')])).toEqual([
      ['request_log_merchant', 'btree (merchant_id, request_id)'],
      ['request_log_pkey', 'btree (request_id)'],
    ]);
    await expect(
      sql`insert into request_log (merchant_id, api_key_id, request_id, method, path, status, duration_ms, created_at)
          values (${merchant}, ${merchant}, ${ids[0]}, 'GET', '/again', 200, 1, clock_timestamp())`.execute(db),
    ).rejects.toThrow(/request_log_pkey/);
  });
});
