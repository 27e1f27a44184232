// The request logger made on first use: a request that logs nothing costs no pino child; one that
// logs writes its lines with its request id, redacted as before.
import { Writable } from 'node:stream';
import Fastify, { LogController } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../logger.ts';
import { lazyChildLogger } from './lazy-logger.ts';

const lines: Record<string, unknown>[] = [];
const sink = new Writable({
  write(chunk, _enc, done) {
    for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line));
    done();
  },
});
const log = createLogger({ level: 'info', format: 'json' }, sink);
const children = vi.spyOn(log, 'child');
// As src/app.ts configures it (Fastify 5's LogController; the bare option is deprecated).
const app = Fastify({
  loggerInstance: log,
  childLoggerFactory: lazyChildLogger,
  logController: new LogController({ disableRequestLogging: true }),
  genReqId: () => `req-${lines.length}`,
});
app.get('/quiet', async (req) => ({ level: req.log.level }));
app.get('/debug', async (req) => {
  req.log.debug('not written at info');
  return {};
});
app.get('/loud', async (req) => {
  req.log.warn({ user: { password: 'hunter2' }, n: 1 }, 'something to say');
  req.log.info('and more');
  return {};
});

beforeAll(() => app.ready());
afterAll(() => app.close());

describe('the request logger', () => {
  it('is not made for a request that logs nothing, or only below the level', async () => {
    children.mockClear();
    expect((await app.inject({ url: '/quiet' })).json()).toEqual({ level: 'info' });
    expect((await app.inject({ url: '/debug' })).statusCode).toBe(200);
    expect(children).not.toHaveBeenCalled();
    expect(lines).toEqual([]);
  });

  it('is made once when a request logs, and binds its request id; redaction still applies', async () => {
    children.mockClear();
    const res = await app.inject({ url: '/loud' });
    expect(res.statusCode).toBe(200);
    expect(children).toHaveBeenCalledTimes(1);
    expect(lines.map(({ time: _time, pid: _pid, hostname: _host, ...rest }) => rest)).toEqual([
      { level: 40, reqId: 'req-0', user: { password: '[redacted]' }, n: 1, msg: 'something to say' },
      { level: 30, reqId: 'req-0', msg: 'and more' },
    ]);
  });
});
