import { describe, expect, it } from 'vitest';
import { AppError } from './errors.ts';
import { merchantShare } from './merchant-share.ts';

const settled = async (p: Promise<unknown>) => {
  let done = false;
  void p.then(
    () => (done = true),
    () => (done = true),
  );
  await new Promise((r) => setImmediate(r));
  return done;
};

describe('merchantShare', () => {
  it('takes at most `limit` turns per merchant, hands each ended turn to the next waiter in order, and leaves other merchants alone', async () => {
    const share = merchantShare(2, 10_000);
    const a1 = await share.take('a');
    const a2 = await share.take('a');
    const order: number[] = [];
    const a3 = share.take('a').then((end) => (order.push(3), end));
    const a4 = share.take('a').then((end) => (order.push(4), end));
    expect(await settled(a3)).toBe(false);
    // Another merchant is not queued behind this one.
    const b1 = await share.take('b');
    expect([share.inProgress('a'), share.inProgress('b')]).toEqual([2, 1]);
    a1();
    a1(); // a turn ends once: the second call hands nothing on
    expect(await settled(a3)).toBe(true);
    expect(await settled(a4)).toBe(false);
    a2();
    expect(await settled(a4)).toBe(true);
    expect(order).toEqual([3, 4]);
    expect(share.inProgress('a')).toBe(2);
    (await a3)();
    (await a4)();
    b1();
    expect([share.inProgress('a'), share.inProgress('b')]).toEqual([0, 0]);
  });

  it('a request that waits longer than waitMs is refused with 503 and Retry-After, and leaves the queue', async () => {
    const share = merchantShare(1, 30);
    const first = await share.take('a');
    const err = await share.take('a').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({
      code: 'service_unavailable',
      status: 503,
      headers: { 'Retry-After': '1' },
      message:
        'This merchant already has 1 request in progress on this instance, and none finished within 0.03 s; nothing was applied. Send fewer requests at once.',
    });
    // The refused waiter is gone: the turn ends for good, and the next request takes it at once.
    first();
    expect(share.inProgress('a')).toBe(0);
    expect(await settled(share.take('a'))).toBe(true);
  });
});
