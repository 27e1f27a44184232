// The API request log's writer. The request path only appends a few primitives to column arrays
// (no per-request object survives it, nothing is parsed or awaited there); a timer (or a full
// batch) writes the buffer off the request path as ONE statement per batch: on PostgreSQL a COPY
// of the rows in its text format (src/db/copy.ts), on PGlite
//   insert into request_log (…) select … from json_to_recordset($1::json) as u(…)
// one parameter whatever the batch size, so neither side builds, sends or parses thousands of
// parameters (a multi-row VALUES of 500 rows is 5,500 of them). The buffer is
// bounded: when the database cannot keep up, new entries are dropped and counted rather than
// growing memory without limit. close() writes what is left (graceful shutdown).
import { sql } from 'kysely';
import type pg from 'pg';
import type { Logger } from 'pino';
import { copyField, copyInto } from '../db/copy.ts';
import type { Database } from '../db/database.ts';
import { makeStorable } from './validation.ts';
import { redactQuery, redactSecrets } from './redact.ts';

export interface RequestLogEntry {
  merchantId: string;
  apiKeyId: string;
  requestId: string;
  method: string;
  /** The URL as received: split into path and query at write time. */
  url: string;
  status: number;
  errorCode: string | null;
  durationMs: number;
  /** The problem body as sent (errors only); parsed at write time. */
  problem: string | null;
  /** When the request started (a Date, or epoch milliseconds). */
  at: Date | number;
}

export interface RequestLogWriter {
  record(entry: RequestLogEntry): void;
  /** Write everything buffered so far (readers call it so a request shows up at once). */
  flush(): Promise<void>;
  close(): Promise<void>;
  readonly dropped: number;
}

export interface RequestLogOptions {
  enabled: boolean;
  /** Most entries held in memory; beyond it new entries are dropped (and counted). */
  maxBuffered?: number;
  /** Most characters of URLs and problems held in memory (16M); beyond it, the same. */
  maxBufferedChars?: number;
  /** Rows per statement (COPY or INSERT). */
  batchSize?: number;
  flushMs?: number;
  /** PostgreSQL: the pool behind `db`, on which batches are written with COPY. */
  pool?: pg.Pool;
}

const MAX_PATH = 2048;
const MAX_QUERY = 1000;
const MAX_PROBLEM = 16_384;

/** The part of a URL the log stores: its path's first MAX_PATH characters and its query's first MAX_QUERY. */
function storedPart(url: string): string {
  const q = url.indexOf('?');
  const path = (q === -1 ? url : url.slice(0, q)).slice(0, MAX_PATH);
  return q === -1 ? path : path + url.slice(q, q + 1 + MAX_QUERY);
}

/** The columns every batch writes, in the order of its rows' fields (COPY and INSERT alike). */
const COLUMNS = ['merchant_id', 'api_key_id', 'request_id', 'method', 'path', 'query', 'status', 'error_code', 'duration_ms', 'problem', 'created_at'];
const COLUMN_LIST = sql.join(COLUMNS.map((name) => sql.ref(name)));

/** The buffer, column by column: what a request leaves behind is strings and numbers it already had. */
class Columns {
  merchantId: string[] = [];
  apiKeyId: string[] = [];
  requestId: string[] = [];
  method: string[] = [];
  url: string[] = [];
  status: number[] = [];
  errorCode: (string | null)[] = [];
  durationMs: number[] = [];
  problem: (string | null)[] = [];
  at: number[] = [];
  /** Characters of the URLs and problems held. */
  chars = 0;
  get length() {
    return this.at.length;
  }
}

/**
 * A formatter of instants (ms since the epoch) as ISO-8601 UTC with milliseconds, as Date's
 * toISOString gives them. The rows of one batch fall within a second or two, so the second is
 * formatted once and only the milliseconds per row (toISOString was a fifth of a row's cost).
 */
export function isoMillis(): (at: number) => string {
  let second = Number.NaN;
  let prefix = '';
  return (at) => {
    const ms = Math.trunc(at); // as Date does with a fraction of a millisecond
    const s = Math.floor(ms / 1000);
    if (s !== second) {
      second = s;
      prefix = new Date(s * 1000).toISOString().slice(0, 20);
    }
    const frac = ms - s * 1000;
    return `${prefix}${frac < 10 ? '00' : frac < 100 ? '0' : ''}${frac}Z`;
  };
}

export function createRequestLog(db: Database, log: Pick<Logger, 'warn' | 'error'>, options: RequestLogOptions): RequestLogWriter {
  const maxBuffered = options.maxBuffered ?? 20_000;
  // A count alone let 20,000 entries of 16 KB URLs and 16 KB problems hold ~650 MB while writes fell
  // behind (found reading the code in a soak audit): the characters are bounded too, and a long URL
  // is kept only as far as it will be stored.
  const maxBufferedChars = options.maxBufferedChars ?? 16_000_000;
  const batchSize = options.batchSize ?? 500;
  let buffer = new Columns();
  let dropped = 0;
  let reportedDrops = 0;
  let writing: Promise<void> = Promise.resolve();
  let closed = false;

  // Entries [from, to) of a taken buffer as the batch's rows: the URL split into path and query,
  // both redacted and made storable; the problem (JSON text already) checked and made storable.
  function fields(c: Columns, i: number) {
    const url = c.url[i];
    const q = url.indexOf('?');
    const p = c.problem[i];
    return {
      path: makeStorable(redactSecrets((q === -1 ? url : url.slice(0, q)).slice(0, MAX_PATH))),
      query: q === -1 ? null : makeStorable(redactQuery(url.slice(q + 1, q + 1 + MAX_QUERY))),
      durationMs: Math.round(c.durationMs[i] * 10) / 10 || 0,
      problem: p === null ? null : problemJson(p),
    };
  }

  // PostgreSQL: COPY's text format, one line per entry.
  const copy = options.pool ? copyInto(options.pool, 'request_log', COLUMNS) : null;
  function copyRows(c: Columns, from: number, to: number) {
    const at = isoMillis();
    let text = '';
    for (let i = from; i < to; i++) {
      const f = fields(c, i);
      // One line, built by concatenation: no array of fields and no join per row.
      text +=
        `${copyField(c.merchantId[i])}\t${copyField(c.apiKeyId[i])}\t${copyField(c.requestId[i])}\t${copyField(c.method[i])}\t` +
        `${copyField(f.path)}\t${copyField(f.query)}\t${c.status[i]}\t${copyField(c.errorCode[i])}\t${f.durationMs}\t` +
        `${copyField(f.problem)}\t${at(c.at[i])}\n`;
    }
    return text;
  }

  // PGlite: one JSON array of rows, the INSERT's one parameter (pg would otherwise serialise eleven
  // arrays element by element).
  function jsonRows(c: Columns, from: number, to: number) {
    const rows = new Array<string>(to - from);
    for (let i = from; i < to; i++) {
      const f = fields(c, i);
      rows[i - from] =
        `{"m":${JSON.stringify(c.merchantId[i])},"k":${JSON.stringify(c.apiKeyId[i])},"r":${JSON.stringify(c.requestId[i])},"me":${JSON.stringify(c.method[i])},` +
        `"p":${JSON.stringify(f.path)},"q":${JSON.stringify(f.query)},"s":${c.status[i]},"e":${JSON.stringify(c.errorCode[i])},` +
        `"d":${f.durationMs},"pr":${f.problem ?? 'null'},"t":${c.at[i] / 1000}}`;
    }
    return `[${rows.join(',')}]`;
  }

  function insert(c: Columns, from: number, to: number): Promise<unknown> {
    if (copy) return copy(copyRows(c, from, to));
    return sql`insert into "request_log" (${COLUMN_LIST})
      select m, k, r, me, p, q, s, e, d, pr, to_timestamp(t)
        from json_to_recordset(${jsonRows(c, from, to)}::json)
          as u(m uuid, k uuid, r uuid, me text, p text, q text, s int, e text, d float8, pr json, t float8)`.execute(db);
  }

  // Writes what is buffered when it runs, in batches of batchSize, and no more: entries recorded
  // meanwhile wait for the next flush (a full batch, the timer, a reader, close). Writing until the
  // buffer was empty kept a busy API in a stream of one-to-twenty-row INSERTs, one after the other,
  // each paying a statement's whole cost (issue #14, GET /orders/:id at 1M: 4,570 → 4,960 req/s).
  async function writeBuffered() {
    const taken = buffer;
    if (taken.length > 0) buffer = new Columns(); // an idle tick keeps the empty buffer
    for (let from = 0; from < taken.length; from += batchSize) {
      const to = Math.min(from + batchSize, taken.length);
      try {
        await insert(taken, from, to);
      } catch (err) {
        // A log write must never take the API down; the lost entries are reported.
        log.error({ err, entries: to - from }, 'request log write failed; entries dropped');
      }
    }
    if (dropped > reportedDrops) {
      log.warn({ dropped: dropped - reportedDrops }, 'request log buffer full; entries dropped');
      reportedDrops = dropped;
    }
  }

  // One write at a time, in order.
  const flush = () => (writing = writing.then(writeBuffered));

  const timer = options.enabled ? setInterval(() => void flush(), options.flushMs ?? 1000) : null;
  timer?.unref();

  return {
    record(e) {
      if (!options.enabled || closed) return;
      const b = buffer;
      const url = e.url.length > MAX_PATH + 1 + MAX_QUERY ? storedPart(e.url) : e.url;
      const chars = url.length + (e.problem?.length ?? 0);
      if (b.length >= maxBuffered || b.chars + chars > maxBufferedChars) {
        dropped++;
        return;
      }
      b.chars += chars;
      b.merchantId.push(e.merchantId);
      b.apiKeyId.push(e.apiKeyId);
      b.requestId.push(e.requestId);
      b.method.push(e.method);
      b.url.push(url);
      b.status.push(e.status);
      b.errorCode.push(e.errorCode);
      b.durationMs.push(e.durationMs);
      b.problem.push(e.problem);
      b.at.push(typeof e.at === 'number' ? e.at : e.at.getTime());
      if (b.length === batchSize) void flush();
    },
    flush,
    async close() {
      closed = true;
      if (timer) clearInterval(timer);
      await flush();
    },
    get dropped() {
      return dropped;
    },
  };
}

// jsonb refuses NUL and unpaired surrogates, and one refused row would lose its whole batch: every
// string of a stored problem is made storable (a cut may also fall inside a surrogate pair).
// A secret the client put in its URL is redacted here too: the problem quotes the path (404) or names
// the query parameter (422), and the portal shows it to every user of the merchant.
const storable = (_key: string, value: unknown) => (typeof value === 'string' ? makeStorable(redactSecrets(value)) : value);

function problemJson(text: string): string {
  if (text.length > MAX_PROBLEM) return JSON.stringify({ truncated: true, excerpt: text.slice(0, MAX_PROBLEM) }, storable);
  try {
    return JSON.stringify(JSON.parse(text), storable);
  } catch {
    return JSON.stringify({ excerpt: text.slice(0, MAX_PROBLEM) }, storable);
  }
}
