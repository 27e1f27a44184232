// Every environment setting, read and checked in one place before anything starts. A bad value
// stops the process with one plain sentence that names the setting and says what to do.
import { isIP } from 'node:net';

export type Role = 'api' | 'worker';
export type LogFormat = 'pretty' | 'json';

export interface Config {
  port: number;
  host: string;
  databaseUrl: string | null;
  /** PostgreSQL: run often-used statements as named prepared statements (off behind a transaction-mode pooler). */
  databasePreparedStatements: boolean;
  dataDir: string;
  platformAdminToken: string | null;
  redisUrl: string | null;
  /** Prefix of every Redis key this service writes (several deployments can share one Redis). */
  redisKeyPrefix: string;
  rateLimitPerMinute: number;
  /** One merchant's requests in progress at once in one API process; more wait their turn (src/http/merchant-share.ts). */
  merchantConcurrency: number;
  webhookRetrySchedule: number[];
  webhookAllowPrivateUrls: boolean;
  webhookTimeoutMs: number;
  /** A request (headers and body) must arrive within this; then 408 and the connection is closed. */
  requestTimeoutMs: number;
  /** TRUST_PROXY: which peers' X-Forwarded-For is believed (a hop count or addresses); false: none. */
  trustProxy: number | string | false;
  /** PostgreSQL: a statement without an answer for this long fails and its connection is dropped (a hung connection). */
  databaseQueryTimeoutMs: number;
  workerPollMs: number;
  /** Posts in flight at once per worker process, over all endpoints. */
  webhookConcurrency: number;
  /** Posts in flight at once per worker process to one endpoint. */
  webhookEndpointConcurrency: number;
  /** Events older than this are purged (and the event feed answers 410 before it). */
  eventRetentionDays: number;
  /** Webhook deliveries, with their attempts, older than this are purged. */
  deliveryRetentionDays: number;
  /** Idempotency records older than this are purged; at least 24 (contract: kept at least 24 h). */
  idempotencyRetentionHours: number;
  /** How often the worker role's maintenance job purges what is past its retention. */
  retentionIntervalMs: number;
  logLevel: string;
  /** pretty: one readable line per entry (the default in a terminal); json: one JSON object per line. */
  logFormat: LogFormat;
  /** Bearer token that guards GET /metrics on the main port; null = /metrics is not served there. */
  metricsToken: string | null;
  /** A separate port serving /metrics without a token (for any role, workers included); null = none. */
  metricsPort: number | null;
  secretKey: string | null;
  roles: Role[];
  seedDemo: boolean;
  publicBaseUrl: string | null;
  /** Record integration-API requests for the portal's request log (buffered, batched writes). */
  requestLogEnabled: boolean;
  requestLogRetentionDays: number;
}

/** A setting that cannot work; the message is the one sentence the operator reads. */
export class ConfigError extends Error {}

// About three days: 1m, 5m, 30m, 2h, 6h, 12h, 24h, 24h.
const DEFAULT_RETRY_SCHEDULE = [60, 300, 1800, 7200, 21600, 43200, 86400, 86400];
const MAX_RETRIES = 100;
const MAX_RETRY_DELAY_S = 30 * 86_400;
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** The longest delay a Node timer keeps: a longer one fires after 1 ms (with a TimeoutOverflowWarning). */
const MAX_TIMER_MS = 2_147_483_647;
/** A hundred years: PostgreSQL's intervals hold far more, but no retention needs more. */
const MAX_DAYS = 36_500;

/**
 * A whole number from `min` to `max`. Every number setting has both bounds: one that cannot work
 * (a timer beyond Node's, an interval beyond PostgreSQL's, 0 requests a minute) is refused here,
 * not met later as a busy loop, a timeout of 0 or a purge that always fails.
 */
function integer(name: string, value: string | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined || value.trim() === '') return fallback;
  if (!/^\s*\d+\s*$/.test(value)) throw new ConfigError(`${name} must be a whole number from ${min} to ${max}, but it is "${value}": fix or unset it.`);
  const n = Number(value);
  if (n < min) throw new ConfigError(`${name} must be at least ${min}, but it is "${value}": fix or unset it.`);
  if (n > max) throw new ConfigError(`${name} must be at most ${max}, but it is "${value}": fix or unset it.`);
  return n;
}

function port(name: string, value: string | undefined, fallback: number | null): number | null {
  if (value === undefined || value.trim() === '') return fallback;
  if (!/^\s*\d+\s*$/.test(value) || Number(value) > 65535) {
    throw new ConfigError(`${name} must be a port number from 0 to 65535 (for example 3000), but it is "${value}": fix or unset it.`);
  }
  return Number(value);
}

function schedule(value: string | undefined): number[] {
  if (value === undefined || value.trim() === '') return DEFAULT_RETRY_SCHEDULE;
  const parts = value.split(',').map((s) => s.trim());
  if (parts.some((s) => !/^\d+(\.\d+)?$/.test(s))) {
    throw new ConfigError(`WEBHOOK_RETRY_SCHEDULE must be comma-separated seconds such as "60,300,1800", but it is "${value}": fix or unset it.`);
  }
  if (parts.length > MAX_RETRIES || parts.some((s) => Number(s) > MAX_RETRY_DELAY_S)) {
    throw new ConfigError(
      `WEBHOOK_RETRY_SCHEDULE may list at most ${MAX_RETRIES} retries of at most ${MAX_RETRY_DELAY_S} seconds (30 days) each, but it is "${value}": fix or unset it.`,
    );
  }
  return parts.map(Number);
}

function roles(value: string | undefined): Role[] {
  if (value === undefined || value === '' || value === 'all' || value === 'both') return ['api', 'worker'];
  const list = value.split(',').map((s) => s.trim());
  for (const r of list) if (r !== 'api' && r !== 'worker') throw new ConfigError(`ROLE must be api, worker or both, but it is "${value}": fix or unset it.`);
  return list as Role[];
}

/** A URL with one of the given protocols; the value is not echoed, since it may hold a password. */
function url(name: string, value: string | undefined, protocols: string[], example: string, unsetMeans: string): string | null {
  if (value === undefined || value.trim() === '') return null;
  let parsed: URL | null = null;
  try {
    parsed = new URL(value.trim());
  } catch {}
  if (!parsed || !protocols.includes(parsed.protocol) || !parsed.hostname) {
    // Named by its first protocol; http and https together as "http(s)" (PUBLIC_BASE_URL takes both).
    const kind = protocols.includes('https:') && protocols.includes('http:') ? 'http(s)' : protocols[0].replace(':', '');
    throw new ConfigError(`${name} is not a valid ${kind} URL: write it like ${example}, or unset it ${unsetMeans}.`);
  }
  return value.trim();
}

function oneOf<T extends string>(name: string, value: string | undefined, allowed: readonly T[], fallback: T): T {
  if (value === undefined || value.trim() === '') return fallback;
  const v = value.trim().toLowerCase() as T;
  if (!allowed.includes(v)) throw new ConfigError(`${name} must be one of ${allowed.join(', ')}, but it is "${value}": fix or unset it.`);
  return v;
}

export const MIN_TOKEN_LENGTH = 16;

/**
 * A bearer token an operator chooses (unset: the feature is off). A short one can be guessed (the
 * operator API has no rate limit, contract §8), and one with white space can never be sent as a
 * bearer token: both are refused at start rather than leaving an API guessable or silently off.
 */
function token(name: string, value: string | undefined, min = MIN_TOKEN_LENGTH): string | null {
  if (value === undefined || value === '') return null;
  const spaced = /\s/.test(value);
  if (spaced || value.length < min) {
    throw new ConfigError(
      `${name} must be at least ${min} characters with no white space, but it is ${value.length} character${value.length === 1 ? '' : 's'}${spaced ? ' with white space' : ''}: use a long random value (openssl rand -hex 32), or unset it.`,
    );
  }
  return value;
}

const PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/**
 * TRUST_PROXY: a number of proxy hops (1 to 10) in front of the service, or the proxies' addresses
 * (IPs, CIDR ranges, or loopback / linklocal / uniquelocal) separated by commas. Unset: no
 * X-Forwarded-For is believed. Not `true`: believing every peer lets any client that reaches the
 * service directly name its own address.
 */
function trustProxy(value: string | undefined): number | string | false {
  if (value === undefined || value.trim() === '') return false;
  const v = value.trim();
  const refuse = (why: string) =>
    new ConfigError(
      `TRUST_PROXY ${why}: give the number of proxies in front of the service (for example 1), or their addresses (for example 10.0.0.0/8,127.0.0.1), or unset it.`,
    );
  if (/^\d+$/.test(v)) {
    const hops = Number(v);
    if (hops < 1 || hops > 10) throw refuse(`must be from 1 to 10 hops, but it is "${value}"`);
    return hops;
  }
  const entries = v.split(',').map((e) => e.trim());
  for (const e of entries) {
    if (PROXY_NAMES.has(e)) continue;
    const [address, prefix, ...rest] = e.split('/');
    const family = isIP(address);
    const bits = family === 4 ? 32 : 128;
    const validPrefix = prefix === undefined || (/^\d+$/.test(prefix) && Number(prefix) <= bits);
    if (family === 0 || !validPrefix || rest.length > 0)
      throw refuse(`names "${e}", which is not an address, a CIDR range or loopback / linklocal / uniquelocal`);
  }
  return entries.join(',');
}

function bool(name: string, value: string | undefined, fallback: boolean): boolean {
  if (value === undefined || value.trim() === '') return fallback;
  const v = value.trim().toLowerCase();
  if (v === 'true' || v === '1' || v === 'yes') return true;
  if (v === 'false' || v === '0' || v === 'no') return false;
  throw new ConfigError(`${name} must be true or false, but it is "${value}": fix or unset it.`);
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env, stdoutIsTerminal = Boolean(process.stdout.isTTY)): Config {
  const publicBaseUrl = url('PUBLIC_BASE_URL', env.PUBLIC_BASE_URL, ['https:', 'http:'], 'https://api.example.com', 'to print http://localhost:PORT');
  const config: Config = {
    port: port('PORT', env.PORT, 3000)!,
    host: env.HOST?.trim() || '0.0.0.0',
    databaseUrl: url(
      'DATABASE_URL',
      env.DATABASE_URL,
      ['postgres:', 'postgresql:'],
      'postgres://user:password@host:5432/dbname',
      'to use the embedded database under DATA_DIR',
    ),
    databasePreparedStatements: bool('DATABASE_PREPARED_STATEMENTS', env.DATABASE_PREPARED_STATEMENTS, true),
    dataDir: env.DATA_DIR?.trim() || './data',
    platformAdminToken: token('PLATFORM_ADMIN_TOKEN', env.PLATFORM_ADMIN_TOKEN),
    redisUrl: url('REDIS_URL', env.REDIS_URL, ['redis:', 'rediss:'], 'redis://127.0.0.1:6379', 'to keep rate-limit counts in this process'),
    redisKeyPrefix: env.REDIS_KEY_PREFIX || 'mia-',
    rateLimitPerMinute: integer('RATE_LIMIT_PER_MINUTE', env.RATE_LIMIT_PER_MINUTE, 600, 1, 1_000_000_000),
    merchantConcurrency: integer('MERCHANT_CONCURRENCY', env.MERCHANT_CONCURRENCY, 5, 1, 10_000),
    webhookRetrySchedule: schedule(env.WEBHOOK_RETRY_SCHEDULE),
    webhookAllowPrivateUrls: bool('WEBHOOK_ALLOW_PRIVATE_URLS', env.WEBHOOK_ALLOW_PRIVATE_URLS, false),
    webhookTimeoutMs: integer('WEBHOOK_TIMEOUT_MS', env.WEBHOOK_TIMEOUT_MS, 10_000, 100, 600_000),
    requestTimeoutMs: integer('REQUEST_TIMEOUT_MS', env.REQUEST_TIMEOUT_MS, 30_000, 100, 3_600_000),
    trustProxy: trustProxy(env.TRUST_PROXY),
    databaseQueryTimeoutMs: integer('DATABASE_QUERY_TIMEOUT_MS', env.DATABASE_QUERY_TIMEOUT_MS, 30_000, 1000, 3_600_000),
    workerPollMs: integer('WORKER_POLL_MS', env.WORKER_POLL_MS, 5_000, 10, 3_600_000),
    webhookConcurrency: integer('WEBHOOK_CONCURRENCY', env.WEBHOOK_CONCURRENCY, 100, 1, 10_000),
    webhookEndpointConcurrency: integer('WEBHOOK_ENDPOINT_CONCURRENCY', env.WEBHOOK_ENDPOINT_CONCURRENCY, 10, 1, 10_000),
    eventRetentionDays: integer('EVENT_RETENTION_DAYS', env.EVENT_RETENTION_DAYS, 30, 1, MAX_DAYS),
    deliveryRetentionDays: integer('DELIVERY_RETENTION_DAYS', env.DELIVERY_RETENTION_DAYS, 30, 1, MAX_DAYS),
    idempotencyRetentionHours: integer('IDEMPOTENCY_RETENTION_HOURS', env.IDEMPOTENCY_RETENTION_HOURS, 48, 24, MAX_DAYS * 24),
    retentionIntervalMs: integer('RETENTION_INTERVAL_MS', env.RETENTION_INTERVAL_MS, 600_000, 1000, MAX_TIMER_MS),
    logLevel: oneOf('LOG_LEVEL', env.LOG_LEVEL, LOG_LEVELS, 'info'),
    logFormat: oneOf('LOG_FORMAT', env.LOG_FORMAT, ['pretty', 'json'] as const, stdoutIsTerminal ? 'pretty' : 'json'),
    metricsToken: token('METRICS_TOKEN', env.METRICS_TOKEN),
    metricsPort: port('METRICS_PORT', env.METRICS_PORT, null),
    // It signs cursors and portal sessions: a short one can be found offline from any signed cursor.
    secretKey: token('SECRET_KEY', env.SECRET_KEY, 32),
    roles: roles(env.ROLE),
    seedDemo: bool('SEED_DEMO', env.SEED_DEMO, true),
    publicBaseUrl,
    requestLogEnabled: bool('REQUEST_LOG_ENABLED', env.REQUEST_LOG_ENABLED, true),
    requestLogRetentionDays: integer('REQUEST_LOG_RETENTION_DAYS', env.REQUEST_LOG_RETENTION_DAYS, 7, 0, MAX_DAYS),
  };
  if (config.metricsPort !== null && config.metricsPort !== 0 && config.metricsPort === config.port && config.roles.includes('api')) {
    throw new ConfigError(
      `METRICS_PORT ${config.metricsPort} is PORT too: give /metrics a port of its own, or unset METRICS_PORT (METRICS_TOKEN serves it on PORT).`,
    );
  }
  return config;
}
