// The worker is woken by commits, not by its poll: with the poll set far beyond every deadline here
// (60 s), deliveries still arrive. In process, on PGlite (its own LISTEN) and on PostgreSQL (a
// dedicated LISTEN connection). Separate processes: test/webhooks-wake-processes.test.ts.
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliveryWake, type DeliveryWake } from '../src/events/wake.ts';
import { startWorker, type Worker } from '../src/events/worker.ts';
import { json, shutDown, startMerchantApp, type TestApp, type TestMerchant } from './helpers.ts';
import { objectIdOf, startReceiver, type Receiver } from './receiver.ts';

const POLL_MS = 60_000;
const DEADLINE_MS = 15_000; // far below the poll: only a wake-up can meet it
let t: TestApp;
let m: TestMerchant;
let key: string;
let wake: DeliveryWake;
let worker: Worker;
let receiver: Receiver;
const log = pino({ level: 'silent' });

beforeAll(async () => {
  ({ t, m, key } = await startMerchantApp({
    config: { workerPollMs: POLL_MS, webhookRetrySchedule: [1], webhookTimeoutMs: 5_000 },
    locations: 1,
    scopes: ['products.write'],
  }));
  wake = deliveryWake(t.database, log);
  worker = startWorker(t.database.db, t.config, log, { wake });
  receiver = await startReceiver();
  json(await m.op('POST', '/webhook-endpoints', { url: receiver.url, events: ['product.created'] }), 201, 'createWebhookEndpoint');
});
afterAll(() => shutDown(worker, wake, receiver, t));

describe('the worker is woken by commits', () => {
  it('each committed event is delivered long before the poll would find it', async () => {
    // The first may be found by the listener's catch-up on connecting; the later ones only by a notification each.
    const ids: string[] = [];
    for (let i = 1; i <= 3; i++) {
      ids.push(json(await t.api(key, 'POST', '/products', { title: `Woken ${i}` }), 201, 'createProduct').data.id);
      await receiver.waitFor(i, DEADLINE_MS);
    }
    expect(receiver.received.map((r) => objectIdOf(r.body))).toEqual(ids);
  });

  it('a write that rolls back wakes nobody and delivers nothing; the next commit is delivered', async () => {
    const before = receiver.received.length;
    const rejected = await t.api(key, 'POST', '/products', {
      title: 'Bad',
      variants: [
        { sku: 'DUP', price: 1 },
        { sku: 'DUP', price: 1 },
      ],
    });
    expect(rejected.statusCode).toBe(422);
    const product = json(await t.api(key, 'POST', '/products', { title: 'After the rollback' }), 201, 'createProduct').data;
    await receiver.waitFor(before + 1, DEADLINE_MS);
    expect(receiver.received.slice(before).map((r) => objectIdOf(r.body))).toEqual([product.id]);
  });

  it('a failed attempt is retried when its retry falls due, not at the next poll', async () => {
    const before = receiver.received.length;
    receiver.script.push({ status: 500 });
    const product = json(await t.api(key, 'POST', '/products', { title: 'Retried' }), 201, 'createProduct').data;
    await receiver.waitFor(before + 2, DEADLINE_MS);
    const attempts = receiver.received.slice(before);
    expect(attempts.map((r) => objectIdOf(r.body))).toEqual([product.id, product.id]);
    expect(attempts[1].at - attempts[0].at).toBeGreaterThanOrEqual(1_000); // the schedule's 1 s
  });

  it('two retries scheduled while the first waits are each posted when due (the later one waited for the poll)', async () => {
    const before = receiver.received.length;
    receiver.script.push({ status: 500 }, { status: 500 });
    const a = json(await t.api(key, 'POST', '/products', { title: 'Retried first' }), 201, 'createProduct').data;
    await receiver.waitFor(before + 1, DEADLINE_MS);
    await new Promise((r) => setTimeout(r, 300));
    const b = json(await t.api(key, 'POST', '/products', { title: 'Retried second' }), 201, 'createProduct').data;
    await receiver.waitFor(before + 4, DEADLINE_MS);
    const attempts = receiver.received.slice(before);
    expect(attempts.map((r) => objectIdOf(r.body))).toEqual([a.id, b.id, a.id, b.id]);
    // Each retry 1 s (the schedule) after its failure, give or take the machine: not at the poll.
    for (const [first, retry] of [
      [0, 2],
      [1, 3],
    ]) {
      expect(attempts[retry].at - attempts[first].at).toBeGreaterThanOrEqual(1_000);
      expect(attempts[retry].at - attempts[first].at).toBeLessThan(4_000);
    }
  });
});
