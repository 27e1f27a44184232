// One Kysely instance over either a PostgreSQL server (DATABASE_URL) or embedded PGlite (DATA_DIR).
import fs from 'node:fs';
import path from 'node:path';
import { Kysely, PGliteDialect, PostgresDialect } from 'kysely';
import pg from 'pg';
import { PGlite } from '@electric-sql/pglite';
import type { DB } from './schema.ts';

export type Database = Kysely<DB>;

export interface DatabaseHandle {
  db: Database;
  kind: 'postgres' | 'pglite';
  close(): Promise<void>;
}

// pg returns int8 and numeric as strings; PGlite must do the same so code sees one shape.
export const PGLITE_PARSERS = { 20: (v: string) => v, 1700: (v: string) => v };

/** Called with every SQL statement run (tests count queries with it). */
export type QueryListener = (sql: string) => void;

const logger = (onQuery?: QueryListener) => (onQuery ? (e: { query: { sql: string } }) => onQuery(e.query.sql) : undefined);

export function postgresDatabase(url: string, poolSize = 10, onQuery?: QueryListener): DatabaseHandle {
  const pool = new pg.Pool({ connectionString: url, max: poolSize });
  pool.on('error', () => {}); // an idle client dropped by the server is replaced on next use
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }), log: logger(onQuery) });
  return { db, kind: 'postgres', close: () => db.destroy() };
}

export function pgliteDatabase(pglite: PGlite, release: () => void = () => {}, onQuery?: QueryListener): DatabaseHandle {
  const db = new Kysely<DB>({ dialect: new PGliteDialect({ pglite }), log: logger(onQuery) });
  return {
    db,
    kind: 'pglite',
    async close() {
      await db.destroy();
      if (!pglite.closed) await pglite.close();
      release();
    },
  };
}

// Two processes on one PGlite directory corrupt it. The lock file holds the owner's pid; a lock
// whose owner is gone (crash, SIGKILL) is taken over.
export function lockDataDir(dataDir: string): () => void {
  fs.mkdirSync(dataDir, { recursive: true });
  const lockPath = path.join(dataDir, '.lock');
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = fs.openSync(lockPath, 'wx');
      fs.writeSync(fd, String(process.pid));
      fs.closeSync(fd);
      return () => {
        try {
          if (fs.readFileSync(lockPath, 'utf8') === String(process.pid)) fs.unlinkSync(lockPath);
        } catch {}
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const owner = Number(fs.readFileSync(lockPath, 'utf8'));
      if (Number.isInteger(owner) && owner > 0 && processAlive(owner)) {
        throw new Error(
          `DATA_DIR ${path.resolve(dataDir)} is in use by process ${owner}. ` +
            'Embedded PostgreSQL allows one process per directory: stop that process, choose another DATA_DIR, ' +
            'or set DATABASE_URL to share a PostgreSQL server between processes.',
        );
      }
      fs.rmSync(lockPath, { force: true });
    }
  }
  throw new Error(`could not take the lock on ${lockPath}`);
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export async function openDatabase(options: { databaseUrl: string | null; dataDir: string }): Promise<DatabaseHandle> {
  if (options.databaseUrl) return postgresDatabase(options.databaseUrl);
  const release = lockDataDir(options.dataDir);
  try {
    const pglite = new PGlite(path.join(options.dataDir, 'pgdata'), { parsers: PGLITE_PARSERS });
    await pglite.waitReady;
    return pgliteDatabase(pglite, release);
  } catch (err) {
    release();
    throw err;
  }
}

/** Run fn in a transaction, or inside the caller's when db already is one. */
export async function inTransaction<T>(db: Database, fn: (trx: Database) => Promise<T>): Promise<T> {
  if (db.isTransaction) return fn(db);
  return db.transaction().execute(fn);
}
