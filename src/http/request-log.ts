// The API request log's writer. The request path only pushes an entry onto an in-memory buffer;
// a timer (or a full batch) writes the buffer with one multi-row INSERT, off the request path.
// The buffer is bounded: when the database cannot keep up, new entries are dropped and counted
// rather than growing memory without limit. close() writes what is left (graceful shutdown).
import type { Logger } from 'pino';
import type { Database } from '../db/database.ts';
import { makeStorable } from './validation.ts';

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
  at: Date;
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
  /** Rows per INSERT. */
  batchSize?: number;
  flushMs?: number;
}

const MAX_QUERY = 1000;
const MAX_PROBLEM = 16_384;

export function createRequestLog(db: Database, log: Pick<Logger, 'warn' | 'error'>, options: RequestLogOptions): RequestLogWriter {
  const maxBuffered = options.maxBuffered ?? 20_000;
  const batchSize = options.batchSize ?? 500;
  let buffer: RequestLogEntry[] = [];
  let dropped = 0;
  let reportedDrops = 0;
  let writing: Promise<void> = Promise.resolve();
  let closed = false;

  const row = (e: RequestLogEntry) => {
    const q = e.url.indexOf('?');
    return {
      merchant_id: e.merchantId,
      api_key_id: e.apiKeyId,
      request_id: e.requestId,
      method: e.method,
      path: makeStorable((q === -1 ? e.url : e.url.slice(0, q)).slice(0, 2048)),
      query: q === -1 ? null : makeStorable(e.url.slice(q + 1, q + 1 + MAX_QUERY)),
      status: e.status,
      error_code: e.errorCode,
      duration_ms: Math.round(e.durationMs * 10) / 10,
      problem: e.problem === null ? null : problemJson(e.problem),
      created_at: e.at,
    };
  };

  async function writeBatches() {
    while (buffer.length) {
      const batch = buffer.slice(0, batchSize);
      buffer = buffer.slice(batch.length);
      try {
        await db.insertInto('request_log').values(batch.map(row)).execute();
      } catch (err) {
        // A log write must never take the API down; the lost entries are reported.
        log.error({ err, entries: batch.length }, 'request log write failed; entries dropped');
      }
    }
    if (dropped > reportedDrops) {
      log.warn({ dropped: dropped - reportedDrops }, 'request log buffer full; entries dropped');
      reportedDrops = dropped;
    }
  }

  // One write at a time, in order.
  const flush = () => (writing = writing.then(writeBatches));

  const timer = options.enabled ? setInterval(() => void flush(), options.flushMs ?? 1000) : null;
  timer?.unref();

  return {
    record(entry) {
      if (!options.enabled || closed) return;
      if (buffer.length >= maxBuffered) {
        dropped++;
        return;
      }
      buffer.push(entry);
      if (buffer.length === batchSize) void flush();
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
const storable = (_key: string, value: unknown) => (typeof value === 'string' ? makeStorable(value) : value);

function problemJson(text: string): string {
  if (text.length > MAX_PROBLEM) return JSON.stringify({ truncated: true, excerpt: text.slice(0, MAX_PROBLEM) }, storable);
  try {
    return JSON.stringify(JSON.parse(text), storable);
  } catch {
    return JSON.stringify({ excerpt: text.slice(0, MAX_PROBLEM) }, storable);
  }
}
