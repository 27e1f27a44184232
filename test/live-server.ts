// A real HTTP server for client-side suites (SDK, warehouse connector): the app on 127.0.0.1 at a
// port the OS picks, its own database copied from the template, and a running webhook worker.
// Every answer it gives is checked against the published documents by the same onSend check as the
// rest of the suite (test/helpers.ts, test/contract.ts); `fetch` makes a broken answer fail the very
// call that received it, so clients under test (the SDK, the connector) are given `server.fetch`.
import pino from 'pino';
import type { Client, RequestBody } from 'merchant-integration-sdk';
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
  /** A merchant onboarded through the operator API, with locations of these names (in order). */
  merchant(name: string, locationNames: string[]): Promise<LiveMerchant>;
  close(): Promise<void>;
}

export interface LiveMerchant {
  id: string;
  locations: string[];
  /** Creates an API key through the operator API (restricted to `locationIds` when given); answers its secret. */
  key(label: string, scopes: string[], locationIds?: string[]): Promise<string>;
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
  async function operator<T>(method: string, path: string, body: unknown, status: number): Promise<T> {
    const res = await checkedFetch(`${baseUrl}/api/platform/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${OPERATOR_TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status !== status) throw new Error(`operator ${method} ${path}: expected ${status}, got ${res.status}: ${text}`);
    return (JSON.parse(text) as { data: T }).data;
  }
  return {
    t,
    baseUrl,
    worker,
    fetch: checkedFetch,
    operator,
    async merchant(name, locationNames) {
      const { id } = await operator<{ id: string }>('POST', '/merchants', { name }, 201);
      const locations: string[] = [];
      for (const location of locationNames) locations.push((await operator<{ id: string }>('POST', `/merchants/${id}/locations`, { name: location }, 201)).id);
      return {
        id,
        locations,
        async key(label, scopes, locationIds) {
          const body = { label, scopes, ...(locationIds ? { location_ids: locationIds } : {}) };
          return (await operator<{ secret: string }>('POST', `/merchants/${id}/api-keys`, body, 201)).secret;
        },
      };
    },
    async close() {
      await worker.stop();
      await t.close();
    },
  };
}

/**
 * A native product created through the SDK, then stocked in one adjustment batch: `stock` pairs a
 * location with each variant's quantity there (0: none). Answers the variants' ids, in order.
 */
export async function stockedProduct(
  client: Client,
  title: string,
  variants: NonNullable<RequestBody<'createProduct'>['variants']>,
  stock: [location: string, quantities: number[]][],
): Promise<string[]> {
  const product = await client.createProduct({ body: { title, variants } });
  const adjustments = stock.flatMap(([location, quantities]) =>
    quantities.flatMap((adjustment, i) => (adjustment ? [{ variant_id: product.data.variants[i].id, fulfillment_location_id: location, adjustment }] : [])),
  );
  await client.adjustInventory({ body: { adjustments } });
  return product.data.variants.map((v) => v.id);
}

export { waitFor } from './wait.ts';
