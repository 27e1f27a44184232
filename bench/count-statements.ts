// Preloaded into a service process (node --import ./bench/count-statements.ts src/main.ts) to count
// the statements it sends to PostgreSQL: pg_stat_statements is not loaded on the shared server and
// log_statement cannot be changed there. Counts every pg Client#query (Kysely's included) and
// answers them on BENCH_COUNTER_PORT: GET = the counts, POST = reset.
import http from 'node:http';
import pg from 'pg';

const counts = { total: 0, begin: 0, commit: 0, rollback: 0, statements: [] as string[] };
const original = pg.Client.prototype.query;
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  const first = args[0] as string | { text?: string } | undefined;
  const text = typeof first === 'string' ? first : (first?.text ?? '');
  counts.total++;
  if (/^\s*begin\b/i.test(text)) counts.begin++;
  else if (/^\s*commit\b/i.test(text)) counts.commit++;
  else if (/^\s*rollback\b/i.test(text)) counts.rollback++;
  if (counts.statements.length < 500) counts.statements.push(text.replace(/\s+/g, ' ').slice(0, 120));
  return (original as (...a: unknown[]) => unknown).apply(this, args);
} as typeof original;

http
  .createServer((req, res) => {
    if (req.method === 'POST') Object.assign(counts, { total: 0, begin: 0, commit: 0, rollback: 0, statements: [] });
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify(counts));
  })
  .listen(Number(process.env.BENCH_COUNTER_PORT ?? 7160), '127.0.0.1')
  .unref();
