// A real HTTP server for client-side suites (SDK, warehouse connector): the app on 127.0.0.1 at a
// port the OS picks, its own database copied from the template, and a running webhook worker.
import pino from 'pino';
import type { AddressInfo } from 'node:net';
import type { Config } from '../src/config.ts';
import { startWorker, type Worker } from '../src/events/worker.ts';
import { OPERATOR_TOKEN, startTestApp, type TestApp } from './helpers.ts';

export interface LiveServer {
  t: TestApp;
  /** e.g. http://127.0.0.1:40123 */
  baseUrl: string;
  worker: Worker;
  /** fetch() against the operator API (path relative to /api/platform/v1), expecting `status`. */
  operator<T = unknown>(method: string, path: string, body: unknown, status: number): Promise<T>;
  close(): Promise<void>;
}

export async function startLiveServer(overrides: Partial<Config> = {}): Promise<LiveServer> {
  const t = await startTestApp({ workerPollMs: 50, webhookTimeoutMs: 2_000, ...overrides });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = t.app.server.address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${port}`;
  const worker = startWorker(t.database.db, t.config, pino({ level: 'silent' }));
  return {
    t,
    baseUrl,
    worker,
    async operator<T>(method: string, path: string, body: unknown, status: number): Promise<T> {
      const res = await fetch(`${baseUrl}/api/platform/v1${path}`, {
        method,
        headers: { authorization: `Bearer ${OPERATOR_TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      if (res.status !== status) throw new Error(`operator ${method} ${path}: expected ${status}, got ${res.status}: ${text}`);
      return (JSON.parse(text) as { data: T }).data;
    },
    async close() {
      await worker.stop();
      await t.close();
    },
  };
}

/** Resolves when `check` returns a value other than undefined; fails after `timeoutMs`. */
export async function waitFor<T>(what: string, check: () => T | undefined | Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
