// Every environment setting, read and checked in one place.

export type Role = 'api' | 'worker';

export interface Config {
  port: number;
  host: string;
  databaseUrl: string | null;
  dataDir: string;
  platformAdminToken: string | null;
  redisUrl: string | null;
  /** Prefix of every Redis key this service writes (several deployments can share one Redis). */
  redisKeyPrefix: string;
  rateLimitPerMinute: number;
  webhookRetrySchedule: number[];
  webhookAllowPrivateUrls: boolean;
  webhookTimeoutMs: number;
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
  secretKey: string | null;
  roles: Role[];
  seedDemo: boolean;
  publicBaseUrl: string | null;
  /** Record integration-API requests for the portal's request log (buffered, batched writes). */
  requestLogEnabled: boolean;
  requestLogRetentionDays: number;
}

// About three days: 1m, 5m, 30m, 2h, 6h, 12h, 24h, 24h.
const DEFAULT_RETRY_SCHEDULE = [60, 300, 1800, 7200, 21600, 43200, 86400, 86400];

function integer(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, got "${value}"`);
  return n;
}

function atLeast(name: string, value: string | undefined, fallback: number, min: number): number {
  const n = integer(name, value, fallback);
  if (n < min) throw new Error(`${name} must be at least ${min}, got "${value}"`);
  return n;
}

function schedule(value: string | undefined): number[] {
  if (value === undefined || value.trim() === '') return DEFAULT_RETRY_SCHEDULE;
  const parts = value.split(',').map((s) => Number(s.trim()));
  if (parts.some((n) => !Number.isFinite(n) || n < 0)) {
    throw new Error(`WEBHOOK_RETRY_SCHEDULE must be comma-separated seconds, got "${value}"`);
  }
  return parts;
}

function roles(value: string | undefined): Role[] {
  if (value === undefined || value === '' || value === 'all' || value === 'both') return ['api', 'worker'];
  const list = value.split(',').map((s) => s.trim());
  for (const r of list) if (r !== 'api' && r !== 'worker') throw new Error(`ROLE must be api, worker or both, got "${r}"`);
  return list as Role[];
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return {
    port: integer('PORT', env.PORT, 3000),
    host: env.HOST || '0.0.0.0',
    databaseUrl: env.DATABASE_URL || null,
    dataDir: env.DATA_DIR || './data',
    platformAdminToken: env.PLATFORM_ADMIN_TOKEN || null,
    redisUrl: env.REDIS_URL || null,
    redisKeyPrefix: env.REDIS_KEY_PREFIX || 'mia-',
    rateLimitPerMinute: integer('RATE_LIMIT_PER_MINUTE', env.RATE_LIMIT_PER_MINUTE, 600),
    webhookRetrySchedule: schedule(env.WEBHOOK_RETRY_SCHEDULE),
    webhookAllowPrivateUrls: env.WEBHOOK_ALLOW_PRIVATE_URLS === 'true',
    webhookTimeoutMs: integer('WEBHOOK_TIMEOUT_MS', env.WEBHOOK_TIMEOUT_MS, 10_000),
    workerPollMs: integer('WORKER_POLL_MS', env.WORKER_POLL_MS, 500),
    webhookConcurrency: atLeast('WEBHOOK_CONCURRENCY', env.WEBHOOK_CONCURRENCY, 100, 1),
    webhookEndpointConcurrency: atLeast('WEBHOOK_ENDPOINT_CONCURRENCY', env.WEBHOOK_ENDPOINT_CONCURRENCY, 10, 1),
    eventRetentionDays: atLeast('EVENT_RETENTION_DAYS', env.EVENT_RETENTION_DAYS, 30, 1),
    deliveryRetentionDays: atLeast('DELIVERY_RETENTION_DAYS', env.DELIVERY_RETENTION_DAYS, 30, 1),
    idempotencyRetentionHours: atLeast('IDEMPOTENCY_RETENTION_HOURS', env.IDEMPOTENCY_RETENTION_HOURS, 48, 24),
    retentionIntervalMs: atLeast('RETENTION_INTERVAL_MS', env.RETENTION_INTERVAL_MS, 600_000, 1000),
    logLevel: env.LOG_LEVEL || 'info',
    secretKey: env.SECRET_KEY || null,
    roles: roles(env.ROLE),
    seedDemo: env.SEED_DEMO !== 'false',
    publicBaseUrl: env.PUBLIC_BASE_URL || null,
    requestLogEnabled: env.REQUEST_LOG_ENABLED !== 'false',
    requestLogRetentionDays: integer('REQUEST_LOG_RETENTION_DAYS', env.REQUEST_LOG_RETENTION_DAYS, 7),
  };
}
