// One Kysely instance over either a PostgreSQL server (DATABASE_URL) or embedded PGlite (DATA_DIR).
import fs from 'node:fs';
import path from 'node:path';
import { Kysely, PGliteDialect, PostgresDialect } from 'kysely';
import pg from 'pg';
import { PGlite } from '@electric-sql/pglite';
import { ConfigError } from '../config.ts';
import { sendStatements, setStatementDeadline, StatementDeadline, StatementNames } from './prepared.ts';
import type { DB } from './schema.ts';

export type Database = Kysely<DB>;

export interface DatabaseHandle {
  db: Database;
  kind: 'postgres' | 'pglite';
  /** PostgreSQL only: the connection pool (its use is exported as metrics). */
  pool?: pg.Pool;
  /** PGlite only: the embedded database (the webhook worker LISTENs on it, src/events/wake.ts). */
  pglite?: PGlite;
  close(): Promise<void>;
}

// pg returns int8 and numeric as strings; PGlite must do the same so code sees one shape.
export const PGLITE_PARSERS = { 20: (v: string) => v, 1700: (v: string) => v };

/** Called with every SQL statement run (tests count queries with it). */
export type QueryListener = (sql: string) => void;

const logger = (onQuery?: QueryListener) => (onQuery ? (e: { query: { sql: string } }) => onQuery(e.query.sql) : undefined);

/**
 * The database could not be reached: a connection could not be made or taken from the pool in
 * time. Nothing ran, so the request can be retried.
 */
export class DatabaseUnavailable extends Error {
  constructor(cause: unknown) {
    super(`the database is unavailable: ${(cause as Error)?.message ?? cause}`, { cause });
    this.name = 'DatabaseUnavailable';
  }
}

// Connection-class failures: the server ended the session (57P01 admin shutdown / terminate,
// 57P02 crash shutdown, 57P03 cannot connect now), connection exceptions (class 08), the socket
// failing, and pg's own messages for a connection that died under or before a query.
const CONNECTION_SQLSTATES = /^(57P0[1-3]|08...)$/;
const CONNECTION_ERRNOS = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);
const CONNECTION_MESSAGES =
  /^(Connection terminated|Client has encountered a connection error|Client was closed and is not queryable|timeout exceeded when trying to connect|Query read timeout)/;

/** True when err says the database connection failed or was lost (not a fault of the request). */
export function isConnectionFailure(err: unknown): boolean {
  for (let e = err, depth = 0; e && depth < 3; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof DatabaseUnavailable) return true;
    const { code, message } = e as { code?: unknown; message?: unknown };
    if (typeof code === 'string' && (CONNECTION_SQLSTATES.test(code) || CONNECTION_ERRNOS.has(code))) return true;
    if (typeof message === 'string' && CONNECTION_MESSAGES.test(message)) return true;
  }
  return false;
}

export function postgresDatabase(
  url: string,
  poolSize = 10,
  onQuery?: QueryListener,
  onConnectionError: (err: Error) => void = () => {},
  preparedStatements = true,
  queryTimeoutMs = 30_000,
): DatabaseHandle {
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    // While the server is unreachable a request waits at most this long for a connection (then 503).
    connectionTimeoutMillis: 5_000,
    keepAlive: true,
    // The server ends a session of ours left idle inside a transaction this long: a process that
    // froze (SIGSTOP, a swapped-out VM) or lost its way mid-transaction held its row locks, and held
    // back every merchant's event feed (its horizon is the oldest open transaction), with no bound.
    // No transaction of ours waits between statements (never across a network call).
    idle_in_transaction_session_timeout: queryTimeoutMs,
  });
  // A client whose connection dies emits 'error'. The pool listens only while the client is idle;
  // one checked out (inside a request or transaction) would crash the process with an unhandled
  // 'error'. So every client gets a listener of its own for its whole life: the query in flight
  // fails with the connection error (503), and on release the pool discards the broken client and
  // opens a new one on next use.
  const names = new StatementNames();
  // A statement with no answer for queryTimeoutMs fails ("Query read timeout", answered 503) and its
  // connection is dropped: one that stopped answering (a network path that holds the TCP connection
  // but passes nothing) held its request, or the webhook worker's claim, for ever, and every
  // statement queued behind it (DATABASE_QUERY_TIMEOUT_MS; 0: none, for migrations).
  const deadline = queryTimeoutMs > 0 ? new StatementDeadline(queryTimeoutMs) : undefined;
  if (deadline) setStatementDeadline(pool, deadline);
  pool.on('connect', (client) => {
    client.on('error', onConnectionError);
    sendStatements(client, preparedStatements ? names : null, deadline);
  });
  pool.on('error', onConnectionError);
  // Failing to get a connection at all is "unavailable", whatever the server's reason (refusing
  // connections, too many clients, starting up).
  const source = {
    connect: () => pool.connect().catch((err: unknown) => Promise.reject(new DatabaseUnavailable(err))),
    end: () => pool.end(),
  };
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool: source as unknown as pg.Pool }), log: logger(onQuery) });
  return {
    db,
    kind: 'postgres',
    pool,
    close: () => {
      deadline?.stop();
      return db.destroy();
    },
  };
}

export function pgliteDatabase(pglite: PGlite, release: () => void = () => {}, onQuery?: QueryListener): DatabaseHandle {
  const db = new Kysely<DB>({ dialect: new PGliteDialect({ pglite }), log: logger(onQuery) });
  return {
    db,
    kind: 'pglite',
    pglite,
    async close() {
      await db.destroy();
      if (!pglite.closed) await pglite.close();
      release();
    },
  };
}

/** Another live process holds the PGlite directory. */
export class DataDirInUse extends ConfigError {
  readonly owner: number;
  constructor(owner: number, message: string) {
    super(message);
    this.owner = owner;
  }
}

// Two processes on one PGlite directory corrupt it. The lock file holds the owner's pid, and its
// owner touches it every HEARTBEAT_MS; a lock whose owner is gone (crash, SIGKILL) is taken over.
// A lock naming this very pid, not held by this process, is a previous run's that got the same pid
// (a container's process is pid 1 at every start: after a kill -9 its lock named "itself" for good)
// or one of a process in another pid namespace sharing the directory: it is taken over once it has
// not been touched for STALE_MS, waited for here.
const HEARTBEAT_MS = 1_000;
const STALE_MS = 3_000;
const heldLocks = new Set<string>();

export function lockDataDir(dataDir: string): () => void {
  usableDataDir(dataDir);
  const lockPath = path.join(dataDir, '.lock');
  const inUse = (owner: number) =>
    new DataDirInUse(
      owner,
      `DATA_DIR ${path.resolve(dataDir)} is in use by process ${owner} (embedded PostgreSQL allows one process per directory): ` +
        'stop that process, choose another DATA_DIR, or set DATABASE_URL to share a PostgreSQL server between processes.',
    );
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = fs.openSync(lockPath, 'wx');
      fs.writeSync(fd, String(process.pid));
      fs.closeSync(fd);
      heldLocks.add(path.resolve(lockPath));
      const heartbeat = setInterval(() => {
        const now = new Date();
        fs.utimes(lockPath, now, now, () => {});
      }, HEARTBEAT_MS).unref();
      return () => {
        clearInterval(heartbeat);
        heldLocks.delete(path.resolve(lockPath));
        try {
          if (fs.readFileSync(lockPath, 'utf8') === String(process.pid)) fs.unlinkSync(lockPath);
        } catch {}
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const owner = Number(fs.readFileSync(lockPath, 'utf8'));
      if (owner === process.pid) {
        if (heldLocks.has(path.resolve(lockPath)) || touchedWithin(lockPath, STALE_MS)) throw inUse(owner);
      } else if (Number.isInteger(owner) && owner > 0 && processAlive(owner)) {
        throw inUse(owner);
      }
      fs.rmSync(lockPath, { force: true });
    }
  }
  throw new Error(`could not take the lock on ${lockPath}`);
}

/** Whether the file is touched within `ms` from now: waits (start-up only) until its last touch is `ms` old. */
function touchedWithin(file: string, ms: number): boolean {
  const first = fs.statSync(file).mtimeMs;
  const wait = first + ms - Date.now();
  if (wait > 0) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, wait + 100);
  try {
    return fs.statSync(file).mtimeMs !== first;
  } catch {
    return false;
  }
}

/** DATA_DIR exists (or can be made) as a directory this process can read and write. */
function usableDataDir(dataDir: string) {
  const where = path.resolve(dataDir);
  const fail = (why: string) =>
    new ConfigError(
      `DATA_DIR ${where} ${why}: set DATA_DIR to a directory this user can write (or unset it for ./data), or set DATABASE_URL to use a PostgreSQL server.`,
    );
  try {
    fs.mkdirSync(dataDir, { recursive: true });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' || code === 'ENOTDIR') throw fail('is not a directory (a file is in the way)');
    if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') throw fail('cannot be created (permission denied)');
    throw fail(`cannot be created (${(err as Error).message})`);
  }
  if (!fs.statSync(dataDir).isDirectory()) throw fail('is not a directory (a file is in the way)');
  try {
    fs.accessSync(dataDir, fs.constants.R_OK | fs.constants.W_OK | fs.constants.X_OK);
  } catch {
    throw fail('is not readable and writable by this user');
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * PGlite's postgres settings for the service (README "Memory"). The embedded server lives in the
 * process's WebAssembly memory, which never shrinks: its stock shared_buffers (128MB) alone grew it
 * from 128 to ~190 MiB and the resident set by ~190 MiB. 16MB of buffers keeps it at its initial
 * 128 MiB; a page not in them is read from the data directory's files (the OS page cache), so a
 * miss costs a system call, not a disk read on a warm machine. PGlite's own defaults are kept.
 */
export const PGLITE_START_PARAMS = [...PGlite.defaultStartParams, '-c', 'shared_buffers=16MB'];

export async function openDatabase(options: {
  databaseUrl: string | null;
  databasePreparedStatements?: boolean;
  dataDir: string;
  databaseQueryTimeoutMs?: number;
  onConnectionError?: (err: Error) => void;
}): Promise<DatabaseHandle> {
  if (options.databaseUrl) {
    return postgresDatabase(
      options.databaseUrl,
      10,
      undefined,
      options.onConnectionError,
      options.databasePreparedStatements ?? true,
      options.databaseQueryTimeoutMs,
    );
  }
  const release = lockDataDir(options.dataDir);
  try {
    const pglite = new PGlite(path.join(options.dataDir, 'pgdata'), { parsers: PGLITE_PARSERS, startParams: PGLITE_START_PARAMS });
    await pglite.waitReady;
    return pgliteDatabase(pglite, release);
  } catch (err) {
    release();
    throw err;
  }
}

/**
 * Runs fn on the database without the statement deadline (DATABASE_QUERY_TIMEOUT_MS), through a
 * connection of its own on PostgreSQL: a migration may build an index over a large table for
 * longer than any request should wait. On PGlite (no deadline) the handle's own database.
 */
export async function withoutQueryTimeout<T>(handle: DatabaseHandle, fn: (db: Database) => Promise<T>): Promise<T> {
  const url = handle.pool?.options.connectionString;
  if (!url) return fn(handle.db);
  const own = postgresDatabase(url, 1, undefined, undefined, false, 0);
  try {
    return await fn(own.db);
  } finally {
    await own.close();
  }
}

/** Run fn in a transaction, or inside the caller's when db already is one. */
export async function inTransaction<T>(db: Database, fn: (trx: Database) => Promise<T>): Promise<T> {
  if (db.isTransaction) return fn(db);
  return db.transaction().execute(fn);
}
