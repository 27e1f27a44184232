// One slow receiver must not slow everyone: a receiver that never answers holds only its own
// endpoint's slots, and another merchant's deliveries keep arriving within a poll interval.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorker, type Worker } from '../src/events/worker.ts';
import { json, startTestApp, type TestApp } from './helpers.ts';
import { objectIdOf, startReceiver, titleOf, type Receiver } from './receiver.ts';
import { waitFor } from './wait.ts';

const POLL_MS = 200;
// What a loaded 2-core machine may add to one poll interval (claim, load, post, receive).
const MARGIN_MS = 2_000;
const PER_ENDPOINT = 3;

let t: TestApp;
let worker: Worker | undefined;
let fast: Receiver;
let hanging: http.Server;
let hangingOpen = 0;
let hangingMax = 0;
let hangingSeen = 0;

beforeAll(async () => {
  t = await startTestApp({ webhookTimeoutMs: 10_000, workerPollMs: POLL_MS, webhookEndpointConcurrency: PER_ENDPOINT, webhookConcurrency: 50 });
  fast = await startReceiver();
  // Reads the request and never answers (until the test ends).
  hanging = http.createServer((req, res) => {
    hangingSeen++;
    hangingOpen++;
    hangingMax = Math.max(hangingMax, hangingOpen);
    req.resume();
    res.on('close', () => hangingOpen--);
  });
  await new Promise<void>((r) => hanging.listen(0, '127.0.0.1', r));
});
afterAll(async () => {
  hanging?.closeAllConnections();
  await worker?.stop();
  await new Promise((r) => hanging?.close(r));
  await fast?.close();
  await t?.close();
});

describe('one slow receiver', () => {
  it("a receiver that never answers on merchant A does not delay merchant B's deliveries beyond one poll interval", async () => {
    const a = await t.merchant({ locations: 1, name: 'A' });
    const b = await t.merchant({ locations: 1, name: 'B' });
    const hangingUrl = `http://127.0.0.1:${(hanging.address() as AddressInfo).port}/hooks`;
    json(await a.op('POST', '/webhook-endpoints', { url: hangingUrl, events: ['product.created'] }), 201, 'createWebhookEndpoint');
    json(await b.op('POST', '/webhook-endpoints', { url: fast.url, events: ['product.created'] }), 201, 'createWebhookEndpoint');
    const keyA = await a.key(['products.write']);
    const keyB = await b.key(['products.write']);
    // More of A's deliveries due than the old batch of 20.
    for (let i = 0; i < 25; i++) json(await t.api(keyA, 'POST', '/products', { title: `A${i}` }), 201, 'createProduct');

    worker = startWorker(t.database.db, t.config, pino({ level: 'silent' }));
    await waitFor(() => hangingOpen === PER_ENDPOINT, { deadlineMs: 10_000, what: `${PER_ENDPOINT} hanging posts to A`, intervalMs: 10 });

    const latencies: number[] = [];
    for (let i = 0; i < 5; i++) {
      const committed = Date.now();
      const product = json(await t.api(keyB, 'POST', '/products', { title: `B${i}` }), 201, 'createProduct').data;
      await waitFor(() => fast.received.some((r) => objectIdOf(r.body) === product.id), { deadlineMs: 15_000, what: `B${i} delivered`, intervalMs: 10 });
      latencies.push(fast.received.find((r) => objectIdOf(r.body) === product.id)!.at - committed);
    }
    console.info(`merchant B delivery latency with A hanging (ms): ${latencies.join(', ')}`);
    for (const ms of latencies) expect(ms, `latencies ${latencies.join(', ')}`).toBeLessThan(POLL_MS + MARGIN_MS);
    // A holds exactly its own slots: no more than the cap, and none of its other 22 deliveries started.
    expect(hangingMax).toBe(PER_ENDPOINT);
    expect(hangingSeen).toBe(PER_ENDPOINT);
    expect(fast.received.map((r) => titleOf(r.body))).toEqual(['B0', 'B1', 'B2', 'B3', 'B4']);
  }, 60_000);
});
