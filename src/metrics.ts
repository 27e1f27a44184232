// Prometheus metrics (prom-client), one registry per process. Counters and histograms are updated
// where things happen (http/, events/); the webhook backlog and the database pool are read when
// scraped, from the database of the app or process that serves the scrape. This file imports
// nothing of ours, so every layer may use it.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export const registry = new Registry();
collectDefaultMetrics({ register: registry, prefix: 'mia_' });

const counter = <L extends string>(name: string, help: string, labelNames: readonly L[] = []) =>
  new Counter<L>({ name, help, labelNames, registers: [registry] });
const histogram = <L extends string>(name: string, help: string, buckets: number[], labelNames: readonly L[] = []) =>
  new Histogram<L>({ name, help, buckets, labelNames, registers: [registry] });

export const httpRequestDuration = histogram(
  'mia_http_request_duration_seconds',
  'Time from receiving a request to sending its answer, by method, route template and status.',
  [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  ['method', 'route', 'status'],
);

// The requests answered are the duration histogram's count per label set, copied when scraped: one
// prom-client call per request (the histogram's) instead of two, each hashing its labels.
const DURATION_COUNT = 'mia_http_request_duration_seconds_count';
new Counter({
  name: 'mia_http_requests_total',
  help: 'HTTP requests answered, by method, route template and status.',
  labelNames: ['method', 'route', 'status'] as const,
  registers: [registry],
  async collect() {
    const { values } = await httpRequestDuration.get();
    // Reset and filled in one synchronous step: two scrapes at once never add to each other's counts.
    this.reset();
    for (const v of values) if (v.metricName === DURATION_COUNT) this.inc(v.labels, v.value);
  },
});

export const rateLimited = counter(
  'mia_rate_limited_total',
  'Requests refused with 429: limiter "api" (per key or client address), "portal_sign_in" (failed sign-ins) or "portal_sends" (test events and resends of one endpoint).',
  ['limiter'],
);

export const idempotentReplays = counter(
  'mia_idempotent_replays_total',
  'Writes answered from a stored Idempotency-Key result instead of being applied again, by route.',
  ['route'],
);

export const webhookAttempts = counter(
  'mia_webhook_delivery_attempts_total',
  'Webhook delivery attempts by outcome: delivered (2xx), retrying (will be tried again), failed (gave up or 410 Gone).',
  ['outcome'],
);

export const webhookLatency = histogram(
  'mia_webhook_delivery_latency_seconds',
  'From the commit that created a delivery (the event) to the receiver accepting it, retries included.',
  [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 7200, 86400],
);

export const retentionPurged = counter('mia_retention_purged_rows_total', 'Rows deleted by the retention job, by table.', ['table']);

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

const gauge = <L extends string>(name: string, help: string, labelNames: readonly L[] = []) => new Gauge<L>({ name, help, labelNames, registers: [registry] });

const backlogGauges = {
  pending: gauge('mia_webhook_backlog', 'Pending webhook deliveries (due now or waiting for a retry).'),
  oldestPendingSeconds: gauge('mia_webhook_backlog_oldest_age_seconds', 'Age of the oldest pending webhook delivery, in seconds (0 when none).'),
  due: gauge('mia_webhook_due', 'Pending webhook deliveries due now on enabled endpoints (the worker queue).'),
  oldestDueSeconds: gauge(
    'mia_webhook_due_oldest_wait_seconds',
    'How long the longest-waiting due delivery has waited past its due time, in seconds: the workers are behind when this grows.',
  ),
};

const poolGauge = gauge('mia_db_pool_connections', 'PostgreSQL connection pool: connections in use, idle, requests waiting for one, and the pool size (max).', [
  'state',
]);

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
    for (const [state, value] of [
      ['in_use', p.inUse],
      ['idle', p.idle],
      ['waiting', p.waiting],
      ['max', p.max],
    ] as const)
      poolGauge.set({ state }, value);
  }
  return { contentType: registry.contentType, body: await registry.metrics() };
}
