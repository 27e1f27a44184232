// Start-up checks and their one-sentence explanations: what a newcomer reads when DATABASE_URL,
// PORT or DATA_DIR cannot work, instead of a stack trace.
import net from 'node:net';
import { Redis } from 'ioredis';
import pg from 'pg';
import { ConfigError } from './config.ts';

type SystemError = Error & { code?: string; address?: string; port?: number };

/** Where DATABASE_URL points, without its password. */
export function databaseTarget(databaseUrl: string): string {
  const u = new URL(databaseUrl);
  return `${u.hostname}:${u.port || 5432}${u.pathname || '/'}`;
}

/** Connect once with a deadline, so an unreachable or misnamed server is one clear sentence. */
export async function checkPostgres(databaseUrl: string, timeoutMs = 10_000): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: timeoutMs });
  client.on('error', () => {});
  const target = databaseTarget(databaseUrl);
  const dbName = new URL(databaseUrl).pathname.slice(1) || '(default)';
  try {
    await client.connect();
    await client.query('select 1');
  } catch (err) {
    const e = err as SystemError;
    const fix = 'start the server or fix DATABASE_URL (unset it to use the embedded database)';
    switch (e.code) {
      case 'ECONNREFUSED':
        throw new ConfigError(`DATABASE_URL points at ${target}, but nothing accepts connections there: ${fix}.`);
      case 'ENOTFOUND':
      case 'EAI_AGAIN':
        throw new ConfigError(`DATABASE_URL names the host "${new URL(databaseUrl).hostname}", which cannot be found: fix the host name in DATABASE_URL.`);
      case 'ETIMEDOUT':
      case 'EHOSTUNREACH':
      case 'ENETUNREACH':
        throw new ConfigError(`DATABASE_URL points at ${target}, which cannot be reached from here: ${fix}.`);
      case '28P01':
      case '28000':
        throw new ConfigError(`PostgreSQL at ${target} refused the user or password in DATABASE_URL (${e.message}): fix the credentials in DATABASE_URL.`);
      case '3D000':
        throw new ConfigError(
          `The database "${dbName}" named in DATABASE_URL does not exist on ${target}: create it (createdb ${dbName}) or fix DATABASE_URL.`,
        );
    }
    if (/timeout/i.test(e.message)) throw new ConfigError(`DATABASE_URL points at ${target}, which did not answer within ${timeoutMs / 1000} s: ${fix}.`);
    throw new ConfigError(`Could not connect to PostgreSQL at ${target} named by DATABASE_URL (${e.message}): fix DATABASE_URL or the server.`);
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * REDIS_URL answers a PING within the deadline. Once running, a Redis that stops answering is
 * tolerated (counts fail open, README); at start, one that cannot be reached is most often a
 * mistyped URL, and a process that started anyway ran without any API rate limit, saying so once.
 */
export async function checkRedis(redisUrl: string, timeoutMs = 5_000): Promise<void> {
  const u = new URL(redisUrl);
  const target = `${u.hostname}:${u.port || 6379}`;
  const client = new Redis(redisUrl, {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    enableOfflineQueue: false,
  });
  // With no retries, connect() rejects with "Connection is closed."; the cause came as an 'error' event.
  let cause: SystemError | null = null;
  client.on('error', (err: SystemError) => (cause ??= err));
  // Connected is not answering: a Redis that accepts and stays silent (stopped with SIGSTOP, a
  // half-open path) held the start for ever. The whole check has the deadline.
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    await Promise.race([client.connect().then(() => client.ping()), deadline]);
  } catch (err) {
    const e = cause ?? (err as SystemError);
    const fix = 'start Redis, fix REDIS_URL, or unset it to keep rate-limit counts in this process';
    if (e.code === 'ENOTFOUND' || e.code === 'EAI_AGAIN') throw new ConfigError(`REDIS_URL names the host "${u.hostname}", which cannot be found: ${fix}.`);
    if (e.code === 'ECONNREFUSED') throw new ConfigError(`REDIS_URL points at ${target}, but nothing accepts connections there: ${fix}.`);
    throw new ConfigError(`Redis at ${target} named by REDIS_URL did not answer (${e.message}): ${fix}.`);
  } finally {
    clearTimeout(timer);
    client.disconnect();
  }
}

/** Fail before opening the database when the port is taken (listen() checks again, for races). */
export async function checkPortFree(setting: 'PORT' | 'METRICS_PORT', port: number, host: string): Promise<void> {
  if (port === 0) return;
  const server = net.createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err) => reject(listenError(err, setting, port, host)));
    server.listen(port, host, () => server.close(() => resolve()));
  });
}

/** An error from listen() on a port, as one sentence; other errors pass through. */
export function listenError(err: unknown, setting: 'PORT' | 'METRICS_PORT', port: number, host: string): unknown {
  const e = err as SystemError;
  switch (e.code) {
    case 'EADDRINUSE':
      return new ConfigError(
        `${setting} ${port} is already in use (another process listens on it, perhaps a server started earlier): stop that process or set ${setting} to a free port.`,
      );
    case 'EACCES':
      return new ConfigError(`${setting} ${port} needs administrator rights on this machine: choose a port above 1023.`);
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
      return new ConfigError(`HOST "${host}" is not an address of this machine: unset HOST to listen on every address, or set it to 127.0.0.1.`);
  }
  return err;
}
