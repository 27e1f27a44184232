// What one request-log flush costs, in CPU, on each side: the writer in this process (Node) and the
// PostgreSQL backend that runs the INSERT (read from /proc). Divided by the rows written, that is
// what the log adds to each request, to compare with what a request costs without it
// (bench/request-log.ts prints that as "CPU per request"). Unlike latency, CPU time is barely
// moved by other work on the machine, so this resolves small costs on a loaded machine.
//   ./node_modules/.bin/node bench/request-log-flush.ts     (PostgreSQL at 127.0.0.1:5432; a portal_flush_* database)
// Settings: FLUSH_ROWS (default 330: one second of the list benchmark on a quiet machine), FLUSH_ROUNDS (default 40),
// FLUSH_IDS (v7, as the service makes request ids; v4 for random ones), FLUSH_PREFILL (rows in the log before the rounds, default 0),
// FLUSH_SQL (statements run after migrating, separated by ";", e.g. to try other indexes),
// FLUSH_WRITE (copy, as the service writes on PostgreSQL; json for the INSERT … json_to_recordset PGlite uses).
import { randomBytes, randomUUID, randomUUIDv7 } from 'node:crypto';
import pg from 'pg';
import pino from 'pino';
import { sql } from 'kysely';
import { postgresDatabase } from '../src/db/database.ts';
import { migrate } from '../src/db/migrate.ts';
import { createRequestLog } from '../src/http/request-log.ts';
import { processCpu } from './common.ts';

const ROWS = Number(process.env.FLUSH_ROWS ?? 330);
const ROUNDS = Number(process.env.FLUSH_ROUNDS ?? 40);
const requestId = process.env.FLUSH_IDS === 'v4' ? randomUUID : randomUUIDv7;
const PREFILL = Number(process.env.FLUSH_PREFILL ?? 0);
const name = `portal_flush_${randomBytes(3).toString('hex')}`;
const admin = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres' });
await admin.connect();
await admin.query(`create database ${name}`);
const handle = postgresDatabase(`postgres://postgres@127.0.0.1:5432/${name}`, 1);
const cpuMs = (pid: number) => {
  const us = processCpu(pid);
  if (us === undefined) throw new Error(`process ${pid} is gone`);
  return us / 1000;
};
try {
  const db = handle.db;
  await migrate(db);
  for (const statement of (process.env.FLUSH_SQL ?? '').split(';').filter((s) => s.trim())) await sql.raw(statement).execute(db);
  const merchantId = randomUUID();
  const keyId = randomUUID();
  await sql`insert into merchants (id, name) values (${merchantId}, 'Flush')`.execute(db);
  await sql`insert into api_keys (id, merchant_id, label, prefix, secret_hash, scopes) values (${keyId}, ${merchantId}, 'k', 'mia_sk_x', ${randomBytes(32).toString('hex')}, ${['products.read']})`.execute(
    db,
  );
  const backend = (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(db)).rows[0].pid;
  const writer = createRequestLog(db, pino({ level: 'silent' }), {
    enabled: true,
    batchSize: 100_000,
    maxBuffered: 100_000,
    flushMs: 3_600_000,
    pool: process.env.FLUSH_WRITE === 'json' ? undefined : handle.pool,
  });
  const fill = () => {
    for (let i = 0; i < ROWS; i++) {
      const error = i % 20 === 0;
      writer.record({
        merchantId,
        apiKeyId: keyId,
        requestId: requestId(),
        method: 'GET',
        url: '/api/integrations/v1/products?limit=50',
        status: error ? 422 : 200,
        errorCode: error ? 'validation_failed' : null,
        durationMs: 12.34,
        problem: error ? '{"type":"/errors#validation_failed","title":"Validation failed","status":422,"code":"validation_failed"}' : null,
        at: new Date(),
      });
    }
  };
  const warmUps = 5 + Math.ceil(PREFILL / ROWS);
  for (let i = 0; i < warmUps; i++) {
    fill();
    await writer.flush();
  } // warm-up (and prefill)
  let node = 0,
    pgMs = 0,
    wall = 0;
  for (let r = 0; r < ROUNDS; r++) {
    fill(); // the request path's share (record) is in the hooks' cost, not here
    const c0 = process.cpuUsage(),
      b0 = cpuMs(backend),
      t0 = performance.now();
    await writer.flush();
    wall += performance.now() - t0;
    const c = process.cpuUsage(c0);
    node += (c.user + c.system) / 1000;
    pgMs += cpuMs(backend) - b0;
  }
  const written = Number((await sql<{ n: string }>`select count(*) as n from request_log`.execute(db)).rows[0].n);
  const expected = (ROUNDS + warmUps) * ROWS;
  if (written !== expected) throw new Error(`${written} rows written, expected ${expected}: a flush failed`);
  const per = (v: number) => ((v / (ROUNDS * ROWS)) * 1000).toFixed(1);
  console.log(
    `request-log flush of ${ROWS} rows, ${ROUNDS} rounds: wall ${(wall / ROUNDS).toFixed(1)} ms per flush; CPU per row: Node ${per(node)} µs, PostgreSQL backend ${per(pgMs)} µs (10 ms ticks, summed over ${ROUNDS * ROWS} rows)`,
  );
  const rows = (
    await sql<{
      'QUERY PLAN': string;
    }>`explain (analyze, format text) insert into request_log (merchant_id, api_key_id, request_id, method, path, query, status, error_code, duration_ms, problem, created_at)
      select ${merchantId}::uuid, ${keyId}::uuid, gen_random_uuid(), 'GET', '/api/integrations/v1/products', 'limit=50', 200, null, 1.5, null, clock_timestamp() from generate_series(1, ${ROWS})`.execute(
      db,
    )
  ).rows;
  console.log(
    rows
      .map((r) => r['QUERY PLAN'])
      .filter((l) => /Trigger|Execution|Insert/.test(l))
      .join('\n'),
  );
  await writer.close();
} finally {
  await handle.close();
  await admin.query(`drop database ${name} with (force)`);
  await admin.end();
}
