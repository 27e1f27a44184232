// Calls that get no answer, and what the SDK says about them: an attempt that outlives `timeoutMs`
// (a server that accepts and never answers), a refused connection, a host that does not resolve, a
// base URL that is no http(s) URL, a request fetch refuses to send. Over real sockets where the
// failure is the socket's.
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { NetworkError, createClient, type ClientOptions } from 'merchant-integration-sdk';
import { hangingFetch } from './fake-answers.ts';

const ORDER_ID = '00000000-0000-4000-8000-000000000001';
const FULFILMENT = { body: { merchant_order_id: ORDER_ID, items: [{ merchant_order_item_id: ORDER_ID, quantity: 1 }] } };

function sdk(options: Partial<ClientOptions> = {}) {
  return createClient({ baseUrl: 'http://api.invalid', apiKey: 'k', sleep: async () => {}, ...options });
}

/** A fetch that never answers, recording each request's Idempotency-Key and signal. */
function hangingRecorder(log: { key: string | null; signal: AbortSignal | null | undefined }[]): typeof fetch {
  return (input, init) => {
    log.push({ key: new Headers(init?.headers).get('idempotency-key'), signal: init?.signal });
    return hangingFetch(input, init);
  };
}

/** An HTTP server on 127.0.0.1 that accepts every request and never answers it. */
async function silentServer(): Promise<{ url: string; requests: () => number; close: () => Promise<void> }> {
  let requests = 0;
  const server = http.createServer(() => void requests++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests: () => requests,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A port on 127.0.0.1 where nothing listens. */
async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A fetch (the real one) that counts its calls. */
function countingFetch(counter: { calls: number }): typeof fetch {
  return (input, init) => {
    counter.calls++;
    return fetch(input, init);
  };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('timeoutMs', () => {
  it('a server that accepts and never answers: each attempt ends after timeoutMs, and the NetworkError says it timed out', async () => {
    const server = await silentServer();
    try {
      const started = Date.now();
      const err = await sdk({ baseUrl: server.url, timeoutMs: 100, retry: { maxAttempts: 3 } })
        .getOrder({ id: ORDER_ID })
        .catch((e: unknown) => e);
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(err).toBeInstanceOf(NetworkError);
      expect((err as NetworkError).message).toBe('getOrder: no answer after 3 attempts: timed out after 100 ms');
      expect((err as NetworkError).cause).toHaveProperty('name', 'TimeoutError');
      expect(server.requests()).toBe(3);
    } finally {
      await server.close();
    }
  });

  it('a keyed write that times out is repeated with its same Idempotency-Key, and its error says the write may have been applied', async () => {
    const log: { key: string | null; signal: AbortSignal | null | undefined }[] = [];
    const err = await sdk({ fetch: hangingRecorder(log), timeoutMs: 20, retry: { maxAttempts: 3 } })
      .createFulfillment(FULFILMENT, { idempotencyKey: 'fulfil-1' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect((err as NetworkError).message).toBe('createFulfillment: no answer after 3 attempts: timed out after 20 ms; the write may have been applied');
    expect(log.map((r) => r.key)).toEqual(['fulfil-1', 'fulfil-1', 'fulfil-1']);
  });

  it('an attempt that timed out is followed by one that answers: the call returns that answer', async () => {
    let requests = 0;
    const client = sdk({
      timeoutMs: 20,
      fetch: async (input, init) => (++requests === 1 ? hangingFetch(input, init) : Response.json({ data: { id: ORDER_ID }, request_id: ORDER_ID })),
    });
    const got = await client.getOrder({ id: ORDER_ID });
    expect(got.data.id).toBe(ORDER_ID);
    expect(requests).toBe(2);
  });

  it("a caller's abort is not a timeout: the call rejects with the signal's reason, not retried", async () => {
    const log: { key: string | null; signal: AbortSignal | null | undefined }[] = [];
    const controller = new AbortController();
    const reason = new Error('shutting down');
    setTimeout(() => controller.abort(reason), 10);
    const err = await sdk({ fetch: hangingRecorder(log), timeoutMs: 5_000 })
      .getOrder({ id: ORDER_ID }, { signal: controller.signal })
      .catch((e: unknown) => e);
    expect(err).toBe(reason);
    expect(log).toHaveLength(1);
  });

  it('the default is 30 s per attempt; 0 and Infinity mean none; a negative one is a TypeError', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const settled: unknown[] = [];
    void sdk({ fetch: hangingFetch, retry: { maxAttempts: 1 } })
      .getOrder({ id: ORDER_ID })
      .catch((e: unknown) => settled.push(e));
    await vi.advanceTimersByTimeAsync(29_999);
    expect(settled).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(settled).toHaveLength(1);
    expect(String(settled[0])).toBe('NetworkError: getOrder: no answer after 1 attempt: timed out after 30000 ms');
    vi.useRealTimers();

    for (const timeoutMs of [0, Infinity]) {
      const log: { key: string | null; signal: AbortSignal | null | undefined }[] = [];
      void sdk({ fetch: hangingRecorder(log), timeoutMs }).getOrder({ id: ORDER_ID });
      await Promise.resolve();
      expect(log).toEqual([{ key: null, signal: undefined }]);
    }
    expect(() => sdk({ timeoutMs: -1 })).toThrow(/timeoutMs/);
  });
});

describe('what a NetworkError says', () => {
  it('a port where nothing listens: the message names ECONNREFUSED and the address', async () => {
    const port = await closedPort();
    const err = await sdk({ baseUrl: `http://127.0.0.1:${port}`, retry: { maxAttempts: 2 } })
      .listOrders()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect((err as NetworkError).message).toBe(`listOrders: no answer after 2 attempts: fetch failed (ECONNREFUSED 127.0.0.1:${port})`);
  });

  it('a host that does not resolve: the message names the lookup error and the host', async () => {
    const err = await sdk({ baseUrl: 'http://no-such-host.invalid', retry: { maxAttempts: 1 } })
      .listOrders()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NetworkError);
    // ENOTFOUND where a resolver answers; EAI_AGAIN on a machine with none.
    expect((err as NetworkError).message).toMatch(/^listOrders: no answer after 1 attempt: fetch failed \((ENOTFOUND|EAI_AGAIN) no-such-host\.invalid\)$/);
  });
});

describe('a request fetch refuses to send', () => {
  it('an apiKey with a line break inside is a TypeError naming the authorization header, at the first attempt: nothing sent, not retried, the key not shown', async () => {
    const server = await silentServer();
    try {
      const counter = { calls: 0 };
      const waits: number[] = [];
      const client = sdk({ baseUrl: server.url, apiKey: 'mia_sk_secret\nrest', fetch: countingFetch(counter), sleep: async (ms) => void waits.push(ms) });
      for (const call of [() => client.getOrder({ id: ORDER_ID }), () => client.createFulfillment(FULFILMENT, { idempotencyKey: 'fulfil-1' })]) {
        const err = await call().catch((e: unknown) => e);
        expect(err).toBeInstanceOf(TypeError);
        expect(err).not.toBeInstanceOf(NetworkError);
        expect((err as TypeError).message).toMatch(
          /^(getOrder|createFulfillment): the "authorization" header cannot be sent: its value \("Bearer " and apiKey\) holds a line break, a NUL or a character beyond U\+00FF$/,
        );
        expect((err as TypeError).message).not.toContain('mia_sk_secret');
      }
      expect(counter.calls).toBe(2);
      expect(waits).toEqual([]);
      expect(server.requests()).toBe(0);
    } finally {
      await server.close();
    }
  });

  it('a header of yours fetch refuses (a value beyond Latin-1, a name with a space) is a TypeError naming it, at the first attempt', async () => {
    const counter = { calls: 0 };
    const client = sdk({ baseUrl: `http://127.0.0.1:${await closedPort()}`, fetch: countingFetch(counter) });
    const refusals = await Promise.all([
      client.listOrders(undefined, { headers: { 'X-Warehouse': 'Zürich €' } }).catch((e: unknown) => e),
      client.listOrders(undefined, { headers: { 'x warehouse': 'north' } }).catch((e: unknown) => e),
    ]);
    expect(refusals.map(String)).toEqual([
      'TypeError: listOrders: the "x-warehouse" header cannot be sent: its value holds a line break, a NUL or a character beyond U+00FF',
      'TypeError: listOrders: the header name "x warehouse" cannot be sent: it is not an HTTP token',
    ]);
    expect(counter.calls).toBe(2);
  });

  it("a header undici will not send (transfer-encoding, expect) is a TypeError with undici's reason, at the first attempt", async () => {
    const server = await silentServer();
    try {
      const counter = { calls: 0 };
      const client = sdk({ baseUrl: server.url, fetch: countingFetch(counter) });
      const refusals = [
        await client.listOrders(undefined, { headers: { 'Transfer-Encoding': 'chunked' } }).catch((e: unknown) => e),
        await client.createFulfillment(FULFILMENT, { headers: { expect: '100-continue' } }).catch((e: unknown) => e),
      ];
      expect(refusals.map(String)).toEqual([
        'TypeError: listOrders: fetch refuses the request: invalid transfer-encoding header',
        'TypeError: createFulfillment: fetch refuses the request: expect header not supported',
      ]);
      expect(counter.calls).toBe(2);
      expect(server.requests()).toBe(0);
    } finally {
      await server.close();
    }
  });

  it('network failures are still retried to maxAttempts: a refused connection, a connection closed without an answer', async () => {
    const port = await closedPort();
    const refused = { calls: 0 };
    const err = await sdk({ baseUrl: `http://127.0.0.1:${port}`, fetch: countingFetch(refused), retry: { maxAttempts: 3 } })
      .getOrder({ id: ORDER_ID })
      .catch((e: unknown) => e);
    expect(String(err)).toBe(`NetworkError: getOrder: no answer after 3 attempts: fetch failed (ECONNREFUSED 127.0.0.1:${port})`);
    expect(refused.calls).toBe(3);

    let connections = 0;
    const hangUp = net.createServer((socket) => (connections++, socket.destroy()));
    await new Promise<void>((resolve) => hangUp.listen(0, '127.0.0.1', resolve));
    try {
      const closed = await sdk({ baseUrl: `http://127.0.0.1:${(hangUp.address() as AddressInfo).port}`, retry: { maxAttempts: 3 } })
        .getOrder({ id: ORDER_ID })
        .catch((e: unknown) => e);
      expect(String(closed)).toBe('NetworkError: getOrder: no answer after 3 attempts: fetch failed (UND_ERR_SOCKET: other side closed)');
      expect(connections).toBe(3);
    } finally {
      await new Promise<void>((resolve) => hangUp.close(() => resolve()));
    }
  });
});

describe('baseUrl', () => {
  it('anything but an absolute http(s) URL is a TypeError naming baseUrl from createClient, before any request', () => {
    let requests = 0;
    const fetch: typeof globalThis.fetch = async () => (requests++, new Response(null, { status: 204 }));
    for (const baseUrl of ['127.0.0.1:4410', 'localhost:4410', 'api.example.com', '/api', 'ftp://api.example.com', 'https://api.example.com?x=1', '']) {
      expect(() => createClient({ baseUrl, apiKey: 'k', fetch }), baseUrl).toThrow(TypeError);
      expect(() => createClient({ baseUrl, apiKey: 'k', fetch }), baseUrl).toThrow(/^baseUrl must be an absolute http\(s\) URL/);
    }
    expect(() => createClient({ baseUrl: '127.0.0.1:4410', apiKey: 'k' })).toThrow('(did you mean "http://127.0.0.1:4410"?)');
    // Credentials: refused without the URL in the message (it holds the password); fetch refused them at every call.
    expect(() => createClient({ baseUrl: 'http://user:s3cret@127.0.0.1:4410', apiKey: 'k', fetch })).toThrow(
      new TypeError('baseUrl must not hold credentials (user:password@): the API key goes in apiKey'),
    );
    expect(requests).toBe(0);
    for (const baseUrl of ['http://127.0.0.1:4410', 'https://api.example.com/', 'https://example.com/merchant-api//']) {
      expect(() => createClient({ baseUrl, apiKey: 'k', fetch }), baseUrl).not.toThrow();
    }
  });
});
