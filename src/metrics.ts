// Prometheus metrics (prom-client), one registry per process. Counters and histograms are updated
// where things happen (http/, events/); the webhook backlog and the database pool are read when
// scraped, from the database of the app or process that serves the scrape. This file imports
// nothing of ours, so every layer may use it.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export const registry = new Registry();
collectDefaultMetrics({ register: registry, prefix: 'mia_' });

export const httpRequests = new Counter({
  name: 'mia_http_requests_total',
  help: 'HTTP requests answered, by method, route template and status.',
  labelNames: ['method', 'route', 'status'] as const,
  registers: [registry],
});

export const httpRequestDuration = new Histogram({
  name: 'mia_http_request_duration_seconds',
  help: 'Time from receiving a request to sending its answer, by method, route template and status.',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [registry],
});

export const rateLimited = new Counter({
  name: 'mia_rate_limited_total',
  help: 'Requests refused with 429: limiter "api" (per key or client address) or "portal_sign_in" (failed sign-ins).',
  labelNames: ['limiter'] as const,
  registers: [registry],
});

export const idempotentReplays = new Counter({
  name: 'mia_idempotent_replays_total',
  help: 'Writes answered from a stored Idempotency-Key result instead of being applied again, by route.',
  labelNames: ['route'] as const,
  registers: [registry],
});

export const webhookAttempts = new Counter({
  name: 'mia_webhook_delivery_attempts_total',
  help: 'Webhook delivery attempts by outcome: delivered (2xx), retrying (will be tried again), failed (gave up or 410 Gone).',
  labelNames: ['outcome'] as const,
  registers: [registry],
});

export const webhookLatency = new Histogram({
  name: 'mia_webhook_delivery_latency_seconds',
  help: 'From the commit that created a delivery (the event) to the receiver accepting it, retries included.',
  buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 7200, 86400],
  registers: [registry],
});

export const retentionPurged = new Counter({
  name: 'mia_retention_purged_rows_total',
  help: 'Rows deleted by the retention job, by table.',
  labelNames: ['table'] as const,
  registers: [registry],
});

export interface Backlog {
  /** Deliveries not yet delivered or failed, including ones waiting for a retry. */
  pending: number;
  /** Seconds since the oldest pending delivery was created (0 when none). */
  oldestPendingSeconds: number;
  /** Pending deliveries whose attempt is due now on an enabled endpoint: the worker's queue. */
  due: number;
  /** Seconds the longest-waiting due delivery has waited past its due time (0 when none). */
  oldestDueSeconds: number;
}

export interface PoolUse {
  inUse: number;
  idle: number;
  waiting: number;
  max: number;
}

/** A pg.Pool, typed structurally (this file imports nothing of ours or of pg). */
export interface PoolLike {
  totalCount: number;
  idleCount: number;
  waitingCount: number;
  options: { max?: number };
}

export function poolUse(pool: PoolLike): PoolUse {
  return { inUse: pool.totalCount - pool.idleCount, idle: pool.idleCount, waiting: pool.waitingCount, max: pool.options.max ?? 10 };
}

const backlogGauges = {
  pending: new Gauge({ name: 'mia_webhook_backlog', help: 'Pending webhook deliveries (due now or waiting for a retry).', registers: [registry] }),
  oldestPendingSeconds: new Gauge({
    name: 'mia_webhook_backlog_oldest_age_seconds',
    help: 'Age of the oldest pending webhook delivery, in seconds (0 when none).',
    registers: [registry],
  }),
  due: new Gauge({ name: 'mia_webhook_due', help: 'Pending webhook deliveries due now on enabled endpoints (the worker queue).', registers: [registry] }),
  oldestDueSeconds: new Gauge({
    name: 'mia_webhook_due_oldest_wait_seconds',
    help: 'How long the longest-waiting due delivery has waited past its due time, in seconds: the workers are behind when this grows.',
    registers: [registry],
  }),
};

const poolGauge = new Gauge({
  name: 'mia_db_pool_connections',
  help: 'PostgreSQL connection pool: connections in use, idle, requests waiting for one, and the pool size (max).',
  labelNames: ['state'] as const,
  registers: [registry],
});

/**
 * The text exposition of every metric. The caller names its own database: the backlog is read
 * now, and the pool's use (PostgreSQL) taken now.
 */
export async function renderMetrics(sources: { backlog?: () => Promise<Backlog>; pool?: PoolLike }): Promise<{ contentType: string; body: string }> {
  if (sources.backlog) {
    try {
      const b = await sources.backlog();
      for (const k of Object.keys(backlogGauges) as (keyof Backlog)[]) backlogGauges[k].set(b[k]);
    } catch {
      // Database unreachable: NaN (unknown) rather than a stale or reassuring number.
      for (const g of Object.values(backlogGauges)) g.set(Number.NaN);
    }
  }
  if (sources.pool) {
    const p = poolUse(sources.pool);
    poolGauge.set({ state: 'in_use' }, p.inUse);
    poolGauge.set({ state: 'idle' }, p.idle);
    poolGauge.set({ state: 'waiting' }, p.waiting);
    poolGauge.set({ state: 'max' }, p.max);
  }
  return { contentType: registry.contentType, body: await registry.metrics() };
}
