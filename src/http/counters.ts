// Fixed-window counters shared by the throttles: in this process's memory, or in Redis when
// REDIS_URL is set so that several processes count together. One Redis connection serves the
// counters and the request rate limit.
import { Redis } from 'ioredis';

export interface Count {
  count: number;
  /** Milliseconds until the window ends and the count starts again at 0. */
  resetInMs: number;
}

export interface CounterStore {
  /** Adds one to key's count; a window of windowMs starts at the first hit. */
  hit(key: string, windowMs: number): Promise<Count>;
  /** Takes back one hit (a request that turned out not to count), if the window still runs. */
  undo(key: string): Promise<void>;
  /** The count without changing it (0 when none or expired). */
  peek(key: string): Promise<Count>;
  reset(key: string): Promise<void>;
}

/** The most keys one process counts in memory (~25 MB); past it the oldest window is forgotten. */
export const MAX_MEMORY_COUNTERS = 100_000;

export class MemoryCounters implements CounterStore {
  private readonly counts = new Map<string, { count: number; resetAt: number }>();
  private readonly sweeper: NodeJS.Timeout;
  private readonly maxKeys: number;

  constructor(sweepEveryMs = 60_000, maxKeys = MAX_MEMORY_COUNTERS) {
    // Expired windows are dropped, so keys an attacker invents do not pile up.
    this.sweeper = setInterval(() => this.sweep(), sweepEveryMs);
    this.sweeper.unref();
    this.maxKeys = maxKeys;
  }

  /** Keys counted now (tests). */
  get size(): number {
    return this.counts.size;
  }

  async hit(key: string, windowMs: number): Promise<Count> {
    const now = Date.now();
    let c = this.counts.get(key);
    if (!c || c.resetAt <= now) {
      // Within a window, keys that arrive faster than windows end (addresses and emails invented
      // by the thousand) are bounded by count: the oldest window goes first (a Map keeps the order
      // keys were added in). Forgetting a count lets its key start again, so the bound is set far
      // above what real sign-ins and sends use.
      if (!c && this.counts.size >= this.maxKeys) {
        this.sweep();
        if (this.counts.size >= this.maxKeys) this.counts.delete(this.counts.keys().next().value!);
      }
      c = { count: 0, resetAt: now + windowMs };
      this.counts.set(key, c);
    }
    c.count++;
    return { count: c.count, resetInMs: c.resetAt - now };
  }

  async undo(key: string): Promise<void> {
    const c = this.counts.get(key);
    if (c && c.resetAt > Date.now() && c.count > 0) c.count--;
  }

  async peek(key: string): Promise<Count> {
    const now = Date.now();
    const c = this.counts.get(key);
    return c && c.resetAt > now ? { count: c.count, resetInMs: c.resetAt - now } : { count: 0, resetInMs: 0 };
  }

  async reset(key: string): Promise<void> {
    this.counts.delete(key);
  }

  sweep() {
    const now = Date.now();
    for (const [key, c] of this.counts) if (c.resetAt <= now) this.counts.delete(key);
  }

  close() {
    clearInterval(this.sweeper);
  }
}

// INCR and the window's expiry in one step, so a crash between them cannot leave a key forever.
const HIT = `local c = redis.call('INCR', KEYS[1])
if c == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return {c, redis.call('PTTL', KEYS[1])}`;
const UNDO = `if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('DECR', KEYS[1]) end`;

/**
 * Counts in Redis under `prefix`. While Redis cannot be reached, each process counts in its own
 * memory instead: the throttles keep working per process rather than letting everything through
 * or refusing everyone.
 */
export class RedisCounters implements CounterStore {
  readonly redis: Redis;
  private readonly prefix: string;
  private readonly fallback = new MemoryCounters();

  constructor(redis: Redis, prefix: string) {
    this.redis = redis;
    this.prefix = prefix;
  }

  async hit(key: string, windowMs: number): Promise<Count> {
    try {
      const [count, ttl] = (await this.redis.eval(HIT, 1, this.prefix + key, String(windowMs))) as [number, number];
      return { count, resetInMs: ttl > 0 ? ttl : windowMs };
    } catch {
      return this.fallback.hit(key, windowMs);
    }
  }

  async undo(key: string): Promise<void> {
    try {
      await this.redis.eval(UNDO, 1, this.prefix + key);
    } catch {
      await this.fallback.undo(key);
    }
  }

  async peek(key: string): Promise<Count> {
    try {
      const [count, ttl] = await Promise.all([this.redis.get(this.prefix + key), this.redis.pttl(this.prefix + key)]);
      return count === null || ttl === -2 ? { count: 0, resetInMs: 0 } : { count: Number(count), resetInMs: Math.max(ttl, 0) };
    } catch {
      return this.fallback.peek(key);
    }
  }

  async reset(key: string): Promise<void> {
    await this.fallback.reset(key);
    try {
      await this.redis.del(this.prefix + key);
    } catch {}
  }

  close() {
    this.fallback.close();
  }
}

export interface SharedCounters {
  store: CounterStore;
  /** The Redis connection, when REDIS_URL is set (the request rate limit uses it too). */
  redis: Redis | undefined;
  /** Resolves once Redis is connected, or has failed to connect, or after 2 s: whichever comes first. */
  ready: Promise<void>;
  close(): Promise<void>;
}

/**
 * How long a Redis command may take before it counts as failed (the caller then falls back at once,
 * as when the connection is refused). A Redis that holds the connection open but does not answer
 * (stopped, overloaded, a network path that drops packets) would otherwise hold every request and
 * sign-in forever. Counters answer in well under a millisecond, so 300 ms is only ever an outage.
 */
export const REDIS_ANSWER_MS = 300;

export function openCounters(opts: { redisUrl: string | null; keyPrefix: string }): SharedCounters {
  if (!opts.redisUrl) {
    const store = new MemoryCounters();
    return { store, redis: undefined, ready: Promise.resolve(), close: async () => store.close() };
  }
  // No offline queue: while Redis is unreachable a command fails at once (and the caller falls back)
  // instead of waiting for a reconnect, which would stall every request behind it. A command not
  // answered within REDIS_ANSWER_MS fails (commandTimeout), and the silent connection is dropped
  // (socketTimeout), so the commands after it fail at once too until a reconnect gets an answer.
  // Commands cut off by a dropped connection are not sent again: a count is not worth a double hit.
  const redis = new Redis(opts.redisUrl, {
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    autoResendUnfulfilledCommands: false,
    commandTimeout: REDIS_ANSWER_MS,
    socketTimeout: REDIS_ANSWER_MS,
    lazyConnect: false,
  });
  // Connection errors surface on the calls that need Redis (and once per outage in the log, through
  // reportRedisOutages); without a listener ioredis would print each one.
  redis.on('error', () => {});
  const ready = new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, 2_000);
    const done = () => {
      clearTimeout(timer);
      resolve();
    };
    redis.once('ready', done);
    redis.once('error', done);
  });
  const store = new RedisCounters(redis, `${opts.keyPrefix}counts:`);
  return {
    store,
    redis,
    ready,
    async close() {
      store.close();
      // QUIT is not answered by a Redis that has stopped answering: then just drop the connection.
      await redis.quit().catch(() => {});
      redis.disconnect();
    },
  };
}

interface OutageLog {
  warn(obj: object, msg: string): void;
  info(msg: string): void;
}

/**
 * Logs when Redis stops answering (a warning, once per outage, however many requests meet it) and
 * when it answers again, so an operator knows the limits are per process meanwhile.
 */
export function reportRedisOutages(redis: Redis, log: OutageLog) {
  let answering = true;
  redis.on('error', (err: Error) => {
    if (!answering) return;
    answering = false;
    log.warn(
      { err: { message: err.message } },
      'Redis is not answering: the API rate limit is not applied and the sign-in and send throttles count per process until it answers again',
    );
  });
  redis.on('ready', () => {
    if (answering) return;
    answering = true;
    log.info('Redis answers again: rate-limit and throttle counts are shared between processes again');
  });
}
