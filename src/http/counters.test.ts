import { afterEach, describe, expect, it } from 'vitest';
import { MemoryCounters } from './counters.ts';

describe('counters in memory', () => {
  let store: MemoryCounters;
  afterEach(() => store.close());

  it('hold at most maxKeys: a new key past it forgets the oldest window, not the others', async () => {
    store = new MemoryCounters(60_000, 3);
    for (const key of ['a', 'b', 'c']) await store.hit(key, 60_000);
    await store.hit('b', 60_000);
    await store.hit('d', 60_000);
    expect(store.size).toBe(3);
    expect(await Promise.all(['a', 'b', 'c', 'd'].map(async (k) => (await store.peek(k)).count))).toEqual([0, 2, 1, 1]);
  });

  it('drop expired windows before forgetting a running one', async () => {
    store = new MemoryCounters(60_000, 2);
    await store.hit('short', 1);
    await store.hit('long', 60_000);
    await new Promise((r) => setTimeout(r, 5));
    await store.hit('new', 60_000);
    expect(store.size).toBe(2);
    expect([(await store.peek('long')).count, (await store.peek('new')).count]).toEqual([1, 1]);
  });
});
