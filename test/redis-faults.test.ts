// Redis faults: a Redis of this suite's own (never the shared one) is stopped with SIGSTOP, so its
// connections stay open but nothing answers, then resumed with SIGCONT.
import net from 'node:net';
import { spawn, type ChildProcess } from 'node:child_process';
import { Writable } from 'node:stream';
import pino from 'pino';
import { Redis } from 'ioredis';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startTestApp, type TestApp } from './helpers.ts';
import { waitFor } from './wait.ts';

const GOOD = 'correct horse battery';

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The app's log lines, parsed. */
function capturedLogger() {
  const lines: { level: number; msg: string }[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line) lines.push(JSON.parse(line) as { level: number; msg: string });
      done();
    },
  });
  return { logger: pino({ level: 'info' }, sink), lines };
}

/** Fails instead of hanging when the app does not answer within `ms`. */
async function within(ms: number, request: Promise<LightMyRequestResponse>): Promise<LightMyRequestResponse> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms)));
  try {
    return await Promise.race([request, late]);
  } finally {
    clearTimeout(timer);
  }
}

let redisServer: ChildProcess;
let redisUrl: string;
let a: TestApp;
let b: TestApp;
const logA = capturedLogger();
const logB = capturedLogger();

beforeAll(async () => {
  const port = await freePort();
  redisServer = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  redisUrl = `redis://127.0.0.1:${port}`;
  const probe = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false });
  probe.on('error', () => {});
  await waitFor(
    async () => {
      try {
        if (probe.status !== 'ready') await probe.connect();
        return (await probe.ping()) === 'PONG';
      } catch {
        return false;
      }
    },
    { deadlineMs: 5_000, what: 'the test Redis to answer', intervalMs: 50 },
  );
  probe.disconnect();
  const config = { redisUrl, redisKeyPrefix: 'faults:', rateLimitPerMinute: 3 };
  a = await startTestApp(config, undefined, logA.logger);
  b = await startTestApp(config, a.database, logB.logger);
});

afterAll(async () => {
  if (redisServer) {
    redisServer.kill('SIGCONT');
    redisServer.kill('SIGTERM');
  }
  await b?.app.close();
  await a?.close();
});

const signIn = (app: TestApp, email: string, password: string, ip: string) =>
  within(2_000, app.app.inject({ method: 'POST', url: '/portal/api/login', payload: { email, password }, remoteAddress: ip }));
const outageWarnings = (lines: { level: number; msg: string }[]) => lines.filter((l) => l.level === 40 && l.msg.startsWith('Redis is not answering'));
const recoveries = (lines: { level: number; msg: string }[]) => lines.filter((l) => l.level === 30 && l.msg.startsWith('Redis answers again'));

describe('Redis that stops answering', () => {
  it('lets API requests through unlimited, throttles sign-ins per process, logs once, and shares counts again once it answers', async () => {
    const m = await a.merchant({ locations: 1 });
    json(await m.op('POST', '/users', { email: 'outage@x.test', password: GOOD }), 201, 'createPortalUser');
    json(await m.op('POST', '/users', { email: 'after@x.test', password: GOOD }), 201, 'createPortalUser');
    const key = await m.key(['products.read']);
    const tags = (app: TestApp, k: string) => within(2_000, app.api(k, 'GET', '/tags'));

    // Shared: the two apps draw on one budget of 3.
    expect((await tags(a, key)).headers['ratelimit']).toBe('"default";r=2;t=60');
    expect((await tags(b, key)).headers['ratelimit']).toMatch(/^"default";r=1;t=(59|60)$/);

    redisServer.kill('SIGSTOP');
    try {
      // The budget has one request left, yet all of these pass: the limit is not applied.
      const started = Date.now();
      const during = [];
      for (let i = 0; i < 6; i++) during.push(await tags(i % 2 ? b : a, key));
      expect(during.map((r) => r.statusCode)).toEqual([200, 200, 200, 200, 200, 200]);
      expect(during.map((r) => r.headers['ratelimit'])).toEqual(Array(6).fill('"default";r=3;t=0'));
      // Each app waits at most one command timeout (300 ms), then fails at once until Redis answers.
      expect(Date.now() - started).toBeLessThan(1_500);

      // The sign-in throttle counts in each process's memory: a's five failures do not count on b.
      const onA: number[] = [];
      for (let i = 0; i < 6; i++) onA.push((await signIn(a, 'outage@x.test', 'wrong', '10.9.0.1')).statusCode);
      expect(onA).toEqual([401, 401, 401, 401, 401, 429]);
      expect((await signIn(b, 'outage@x.test', GOOD, '10.9.0.1')).statusCode).toBe(200);

      expect((await within(2_000, a.app.inject({ method: 'GET', url: '/readyz' }))).statusCode).toBe(200);
      expect(outageWarnings(logA.lines)).toHaveLength(1);
      expect(outageWarnings(logB.lines)).toHaveLength(1);
      expect(recoveries(logA.lines)).toHaveLength(0);
    } finally {
      redisServer.kill('SIGCONT');
    }

    await waitFor(() => recoveries(logA.lines).length === 1 && recoveries(logB.lines).length === 1, {
      deadlineMs: 8_000,
      what: 'both apps to log that Redis answers again',
    });
    // Shared again: a fresh key's budget is drawn on by both apps, then refused on either.
    const fresh = await m.key(['products.read']);
    expect((await tags(a, fresh)).headers['ratelimit']).toBe('"default";r=2;t=60');
    expect((await tags(b, fresh)).headers['ratelimit']).toMatch(/^"default";r=1;t=(59|60)$/);
    expect((await tags(a, fresh)).statusCode).toBe(200);
    expect((await tags(b, fresh)).statusCode).toBe(429);
    // And the sign-in throttle counts across both apps again.
    const codes: number[] = [];
    for (let i = 0; i < 5; i++) codes.push((await signIn(i % 2 ? b : a, 'after@x.test', 'wrong', '10.9.0.2')).statusCode);
    expect(codes).toEqual([401, 401, 401, 401, 401]);
    expect((await signIn(b, 'after@x.test', GOOD, '10.9.0.2')).statusCode).toBe(429);
    expect(outageWarnings(logA.lines)).toHaveLength(1);
  }, 20_000);
});
