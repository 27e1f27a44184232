// The client's waits, with a scripted fetch (no server): an aborted call rejects with its signal's
// reason at once, also during a Retry-After wait; feed() ends when its signal aborts; Retry-After is
// delay-seconds or an HTTP-date, anything else falls back to the exponential backoff.
import { describe, expect, it } from 'vitest';
import { createClient, type ClientOptions } from 'merchant-integration-sdk';
import { hangingFetch, page, problem } from './fake-answers.ts';

const ORDER_ID = '00000000-0000-4000-8000-000000000001';

function sdk(options: Partial<ClientOptions> & Pick<ClientOptions, 'fetch'>) {
  return createClient({ baseUrl: 'http://api.invalid', apiKey: 'k', ...options });
}

/** Settles `promise` or, when it has not settled within `ms`, answers 'still waiting'. */
async function within<T>(ms: number, promise: Promise<T>): Promise<T | 'still waiting'> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<'still waiting'>((resolve) => (timer = setTimeout(() => resolve('still waiting'), ms)));
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

const feedEvent = (n: number) => ({ id: `evt-${n}`, type: 'order.created', position: `p${n}` });

describe('abort', () => {
  it('an already aborted signal rejects the call with its reason (an AbortError) before any request', async () => {
    let requests = 0;
    const client = sdk({ fetch: (input, init) => (requests++, hangingFetch(input, init)) });
    const err = await client.getOrder({ id: ORDER_ID }, { signal: AbortSignal.abort() }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DOMException);
    expect(err).toHaveProperty('name', 'AbortError');
    expect(requests).toBe(0);
  });

  it("a call aborted during its request rejects with the signal's reason, as fetch does", async () => {
    const controller = new AbortController();
    const reason = new Error('shutting down');
    setTimeout(() => controller.abort(reason), 10);
    const err = await sdk({ fetch: hangingFetch })
      .getOrder({ id: ORDER_ID }, { signal: controller.signal })
      .catch((e: unknown) => e);
    expect(err).toBe(reason);
  });

  for (const sleep of ['the default sleep', 'an injected sleep'] as const) {
    it(`a call aborted during a Retry-After wait rejects at once with the signal's reason (${sleep})`, async () => {
      const controller = new AbortController();
      let requests = 0;
      const client = sdk({
        fetch: async () => {
          requests++;
          setTimeout(() => controller.abort(), 10);
          return problem(503, 'service_unavailable', { 'retry-after': '20' });
        },
        ...(sleep === 'an injected sleep' ? { sleep: () => new Promise<void>(() => {}) } : {}),
      });
      const err = await within(
        1_000,
        client.getOrder({ id: ORDER_ID }, { signal: controller.signal }).catch((e: unknown) => e),
      );
      expect(err).toBeInstanceOf(DOMException);
      expect(err).toHaveProperty('name', 'AbortError');
      expect(requests).toBe(1);
    });

    it(`feed({ follow: true }) ends when its signal aborts during a poll wait (${sleep})`, async () => {
      const controller = new AbortController();
      let requests = 0;
      const client = sdk({
        fetch: async () => {
          requests++;
          setTimeout(() => controller.abort(), 10);
          return page([feedEvent(1)]);
        },
        ...(sleep === 'an injected sleep' ? { sleep: () => new Promise<void>(() => {}) } : {}),
      });
      const seen: string[] = [];
      const done = (async () => {
        for await (const e of client.feed({ follow: true, pollIntervalMs: 60_000, signal: controller.signal })) seen.push(e.id);
        return 'ended';
      })();
      expect(await within(1_000, done)).toBe('ended');
      expect(seen).toEqual(['evt-1']);
      expect(requests).toBe(1);
    });
  }

  it('feed() ends when its signal aborts during a request, and makes none when the signal is already aborted', async () => {
    const controller = new AbortController();
    let requests = 0;
    const client = sdk({ fetch: (input, init) => (requests++, hangingFetch(input, init)) });
    setTimeout(() => controller.abort(), 10);
    const seen: string[] = [];
    for await (const e of client.feed({ follow: true, signal: controller.signal })) seen.push(e.id);
    for await (const e of client.feed({ signal: AbortSignal.abort() })) seen.push(e.id);
    expect(seen).toEqual([]);
    expect(requests).toBe(1);
  });

  it('feed() yields no further event once its signal has aborted', async () => {
    const controller = new AbortController();
    const client = sdk({ fetch: async () => page([feedEvent(1), feedEvent(2), feedEvent(3)]) });
    const seen: string[] = [];
    for await (const e of client.feed({ follow: true, signal: controller.signal })) {
      seen.push(e.id);
      controller.abort();
    }
    expect(seen).toEqual(['evt-1']);
  });
});

describe('Retry-After', () => {
  it('is delay-seconds or an HTTP-date (IMF-fixdate, RFC 850, asctime); anything else ("1.5", "-3") falls back to the backoff', async () => {
    const now = Date.parse('2026-11-08T10:00:00.000Z');
    const values = ['1.5', '-3', 'soon', '2 s', 'Sun, 08 Nov 2026 10:00:03 GMT', 'Sunday, 08-Nov-26 10:00:05 GMT', 'Sun Nov  8 10:00:07 2026', ' 4 '];
    const answers = values.map((v) => problem(503, 'service_unavailable', { 'retry-after': v }));
    const sleeps: number[] = [];
    const client = sdk({
      fetch: async () => answers.shift() ?? Response.json({ data: { id: ORDER_ID }, request_id: ORDER_ID }),
      sleep: async (ms) => void sleeps.push(ms),
      now: () => now,
      retry: { maxAttempts: values.length + 1 },
    });
    await client.getOrder({ id: ORDER_ID });
    expect(sleeps).toEqual([500, 1_000, 2_000, 4_000, 3_000, 5_000, 7_000, 4_000]);
  });
});
