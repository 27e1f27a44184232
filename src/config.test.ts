// Settings that cannot work are refused before anything starts, each with one sentence naming it.
import { describe, expect, it } from 'vitest';
import { loadConfig } from './config.ts';

const refused = (env: Record<string, string>) => {
  try {
    loadConfig(env);
  } catch (err) {
    return (err as Error).message;
  }
  return 'accepted';
};

describe('number settings have both bounds (an operations audit started each of these and met it later)', () => {
  it('timers longer than Node keeps (they fired after 1 ms: a busy loop) and intervals PostgreSQL cannot hold', () => {
    expect(refused({ RETENTION_INTERVAL_MS: '2592000000' })).toBe('RETENTION_INTERVAL_MS must be at most 2147483647, but it is "2592000000": fix or unset it.');
    expect(refused({ WORKER_POLL_MS: '2592000000' })).toBe('WORKER_POLL_MS must be at most 3600000, but it is "2592000000": fix or unset it.');
    expect(refused({ WEBHOOK_TIMEOUT_MS: '3000000000' })).toBe('WEBHOOK_TIMEOUT_MS must be at most 600000, but it is "3000000000": fix or unset it.');
    expect(refused({ EVENT_RETENTION_DAYS: '99999999999' })).toBe('EVENT_RETENTION_DAYS must be at most 36500, but it is "99999999999": fix or unset it.');
    expect(refused({ DELIVERY_RETENTION_DAYS: '36501' })).toBe('DELIVERY_RETENTION_DAYS must be at most 36500, but it is "36501": fix or unset it.');
    expect(refused({ REQUEST_LOG_RETENTION_DAYS: '99999999999' })).toBe(
      'REQUEST_LOG_RETENTION_DAYS must be at most 36500, but it is "99999999999": fix or unset it.',
    );
    expect(refused({ IDEMPOTENCY_RETENTION_HOURS: '9999999999999' })).toBe(
      'IDEMPOTENCY_RETENTION_HOURS must be at most 876000, but it is "9999999999999": fix or unset it.',
    );
    expect(refused({ WEBHOOK_RETRY_SCHEDULE: '60,99999999999999' })).toBe(
      'WEBHOOK_RETRY_SCHEDULE may list at most 100 retries of at most 2592000 seconds (30 days) each, but it is "60,99999999999999": fix or unset it.',
    );
    expect(refused({ DATABASE_QUERY_TIMEOUT_MS: '3600001' })).toBe('DATABASE_QUERY_TIMEOUT_MS must be at most 3600000, but it is "3600001": fix or unset it.');
  });

  it('values that cannot work: no request a minute, a timeout of 0, a poll of 0 (a busy loop)', () => {
    expect(refused({ RATE_LIMIT_PER_MINUTE: '0' })).toBe('RATE_LIMIT_PER_MINUTE must be at least 1, but it is "0": fix or unset it.');
    expect(refused({ WEBHOOK_TIMEOUT_MS: '0' })).toBe('WEBHOOK_TIMEOUT_MS must be at least 100, but it is "0": fix or unset it.');
    expect(refused({ WORKER_POLL_MS: '0' })).toBe('WORKER_POLL_MS must be at least 10, but it is "0": fix or unset it.');
    expect(refused({ DATABASE_QUERY_TIMEOUT_MS: '999' })).toBe('DATABASE_QUERY_TIMEOUT_MS must be at least 1000, but it is "999": fix or unset it.');
    expect(refused({ WEBHOOK_CONCURRENCY: 'many' })).toBe('WEBHOOK_CONCURRENCY must be a whole number from 1 to 10000, but it is "many": fix or unset it.');
  });

  it('operator and metrics tokens and SECRET_KEY short enough to guess, or with white space (never sendable), are refused', () => {
    expect(refused({ PLATFORM_ADMIN_TOKEN: 'a' })).toBe(
      'PLATFORM_ADMIN_TOKEN must be at least 16 characters with no white space, but it is 1 character: use a long random value (openssl rand -hex 32), or unset it.',
    );
    expect(refused({ PLATFORM_ADMIN_TOKEN: '                    ' })).toBe(
      'PLATFORM_ADMIN_TOKEN must be at least 16 characters with no white space, but it is 20 characters with white space: use a long random value (openssl rand -hex 32), or unset it.',
    );
    expect(refused({ METRICS_TOKEN: 'short' })).toBe(
      'METRICS_TOKEN must be at least 16 characters with no white space, but it is 5 characters: use a long random value (openssl rand -hex 32), or unset it.',
    );
    expect(refused({ SECRET_KEY: 'x' })).toBe(
      'SECRET_KEY must be at least 32 characters with no white space, but it is 1 character: use a long random value (openssl rand -hex 32), or unset it.',
    );
    expect(loadConfig({ SECRET_KEY: 'k'.repeat(32) }).secretKey).toBe('k'.repeat(32));
    // http is allowed too: the message said "https URL".
    expect(refused({ PUBLIC_BASE_URL: 'ftp://x' })).toBe(
      'PUBLIC_BASE_URL is not a valid http(s) URL: write it like https://api.example.com, or unset it to print http://localhost:PORT.',
    );
    expect(loadConfig({ PLATFORM_ADMIN_TOKEN: '0123456789abcdef', METRICS_TOKEN: '' })).toMatchObject({
      platformAdminToken: '0123456789abcdef',
      metricsToken: null,
    });
  });

  it('METRICS_PORT equal to PORT is refused at once (it failed after migrating, blaming "another process")', () => {
    expect(refused({ PORT: '4450', METRICS_PORT: '4450' })).toBe(
      'METRICS_PORT 4450 is PORT too: give /metrics a port of its own, or unset METRICS_PORT (METRICS_TOKEN serves it on PORT).',
    );
    // A worker serves no PORT, and 0 picks a free port each time.
    expect(refused({ PORT: '4450', METRICS_PORT: '4450', ROLE: 'worker' })).toBe('accepted');
    expect(refused({ PORT: '0', METRICS_PORT: '0' })).toBe('accepted');
  });

  it('the defaults and the bounds themselves are accepted', () => {
    expect(loadConfig({})).toMatchObject({ rateLimitPerMinute: 600, webhookTimeoutMs: 10_000, workerPollMs: 5_000, databaseQueryTimeoutMs: 30_000 });
    expect(
      loadConfig({ RETENTION_INTERVAL_MS: '2147483647', EVENT_RETENTION_DAYS: '36500', RATE_LIMIT_PER_MINUTE: '1', WEBHOOK_RETRY_SCHEDULE: '0,2592000' }),
    ).toMatchObject({ retentionIntervalMs: 2_147_483_647, eventRetentionDays: 36_500, rateLimitPerMinute: 1, webhookRetrySchedule: [0, 2_592_000] });
  });
});

describe('TRUST_PROXY', () => {
  it("takes a hop count or the proxies' addresses, and refuses anything else with one sentence", () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: ' 2 ' }).trustProxy).toBe(2);
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8, 127.0.0.1,loopback, fd00::/8' }).trustProxy).toBe('10.0.0.0/8,127.0.0.1,loopback,fd00::/8');
    const advice = 'give the number of proxies in front of the service (for example 1), or their addresses (for example 10.0.0.0/8,127.0.0.1), or unset it.';
    expect(refused({ TRUST_PROXY: 'true' })).toBe(
      `TRUST_PROXY names "true", which is not an address, a CIDR range or loopback / linklocal / uniquelocal: ${advice}`,
    );
    expect(refused({ TRUST_PROXY: '0' })).toBe(`TRUST_PROXY must be from 1 to 10 hops, but it is "0": ${advice}`);
    expect(refused({ TRUST_PROXY: '10.0.0.0/33' })).toBe(
      `TRUST_PROXY names "10.0.0.0/33", which is not an address, a CIDR range or loopback / linklocal / uniquelocal: ${advice}`,
    );
    expect(refused({ TRUST_PROXY: 'proxy.internal' })).toBe(
      `TRUST_PROXY names "proxy.internal", which is not an address, a CIDR range or loopback / linklocal / uniquelocal: ${advice}`,
    );
  });
});
