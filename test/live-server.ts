// A real HTTP server for client-side suites (SDK, warehouse connector): the app on 127.0.0.1 at a
// port the OS picks, its own database copied from the template, and a running webhook worker.
// Every answer it gives is checked against the published documents by the same onSend check as the
// rest of the suite (test/helpers.ts, test/contract.ts); `fetch` makes a broken answer fail the very
// call that received it, so clients under test (the SDK, the connector) are given `server.fetch`.
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
  /** fetch() that fails when the answer it got breaks the OpenAPI document (status, content type, body, headers). */
  fetch: typeof fetch;
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
  // The onSend check of an answer runs before its first byte is sent, so it has run when fetch resolves.
  const checkedFetch: typeof fetch = async (input, init) => {
    const res = await fetch(input, init);
    t.assertKeptContract();
    return res;
  };
  return {
    t,
    baseUrl,
    worker,
    fetch: checkedFetch,
    async operator<T>(method: string, path: string, body: unknown, status: number): Promise<T> {
      const res = await checkedFetch(`${baseUrl}/api/platform/v1${path}`, {
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

export { waitFor } from './wait.ts';
