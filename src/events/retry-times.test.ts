import { describe, expect, it } from 'vitest';
import { RetryTimes } from './retry-times.ts';

describe('a worker’s retry wake-up times', () => {
  it('share a 50 ms slot, and come out earliest first as they fall due', () => {
    const times = new RetryTimes();
    expect([times.add(1_001), times.add(1_049), times.add(1_051), times.add(2_000)]).toEqual([1_050, 1_050, 1_100, 2_000]);
    expect(times.size).toBe(3);
    expect(times.takeDue(1_000)).toBe(1_050);
    expect(times.takeDue(1_050)).toBe(1_100);
    expect(times.takeDue(5_000)).toBe(Infinity);
    expect(times.size).toBe(0);
  });

  it('keep at most max: the latest are forgotten (the poll finds those retries), never an earlier one', () => {
    const times = new RetryTimes(3);
    for (const at of [100, 200, 300]) times.add(at);
    expect(times.add(400)).toBeNull();
    expect(times.size).toBe(3);
    expect(times.add(150)).toBe(150);
    expect(times.size).toBe(3);
    const order: number[] = [];
    for (let next = times.takeDue(0); next !== Infinity; next = times.takeDue(next)) order.push(next);
    expect(order).toEqual([100, 150, 200]);
  });
});
