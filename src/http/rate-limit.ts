// Per-key request rate with the IETF draft-10 headers on every answer. Counts live in memory, or in
// Redis (the connection of counters.ts) when REDIS_URL is set so several processes share them.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import rateLimit from '@fastify/rate-limit';
import type { Redis } from 'ioredis';
import { rateLimited } from '../metrics.ts';
import { reportRedisOutages } from './counters.ts';
import { AppError } from './errors.ts';

declare module 'fastify' {
  interface FastifyRequest {
    rateLimitKey?: string;
  }
  interface FastifyInstance {
    checkRateLimit(req: FastifyRequest, reply: FastifyReply, key: string): Promise<void>;
  }
}

const WINDOW_SECONDS = 60;

export async function registerRateLimit(app: FastifyInstance, opts: { perMinute: number; redis: Redis | undefined; keyPrefix: string }) {
  // The connection is counters.ts's (a Redis command gives up after REDIS_ANSWER_MS); here is where
  // it meets the app's log. While Redis fails, skipOnError lets requests through, unlimited.
  if (opts.redis) reportRedisOutages(opts.redis, app.log);
  await app.register(rateLimit, {
    global: false,
    max: opts.perMinute,
    timeWindow: WINDOW_SECONDS * 1000,
    redis: opts.redis,
    nameSpace: `${opts.keyPrefix}rl:`,
    skipOnError: true,
    keyGenerator: (req: FastifyRequest) => req.rateLimitKey ?? req.ip,
  });
  // Without options: with them, the plugin keys the counts by a route it does not have
  // (`mia-rl:undefinedundefined-key:…` in Redis).
  const limiter = app.createRateLimit();
  const policy = `"default";q=${opts.perMinute};w=${WINDOW_SECONDS}`;

  app.decorate('checkRateLimit', async (req: FastifyRequest, reply: FastifyReply, key: string) => {
    req.rateLimitKey = key;
    const r = await limiter(req);
    if (r.isAllowed) return;
    const reset = Math.max(0, r.ttlInSeconds);
    reply.header('RateLimit-Policy', policy);
    reply.header('RateLimit', `"default";r=${r.remaining};t=${reset}`);
    if (r.isExceeded) {
      rateLimited.inc({ limiter: 'api' });
      throw new AppError('rate_limited', `More than ${r.max} requests in ${WINDOW_SECONDS} s for this key.`, undefined, {
        'Retry-After': String(Math.max(1, reset)),
      });
    }
  });
}
