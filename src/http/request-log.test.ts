// The request log's timestamp formatter (COPY's created_at) against Date's own toISOString.
import { describe, expect, it } from 'vitest';
import { isoMillis } from './request-log.ts';

describe('isoMillis', () => {
  it('formats every instant as toISOString does, across milliseconds, seconds and days', () => {
    const at = isoMillis();
    const base = Date.UTC(2026, 10, 23, 23, 59, 58, 0);
    const instants = [
      ...[0, 1, 9, 10, 99, 100, 999, 1000, 1001, 1999.9, 2000, 2000.5, 2009, 2099, 60_000].map((d) => base + d),
      // Back in time and forward again: the cached second is replaced, not assumed to grow.
      base - 1,
      base + 86_400_000 + 7,
      0,
      0.4,
      -1500.5,
      Date.UTC(2000, 1, 29, 12, 0, 0, 5),
    ];
    for (const t of instants) expect(at(t), String(t)).toBe(new Date(t).toISOString());
  });

  it('agrees with toISOString on 20,000 instants a request log sees in a few seconds', () => {
    const at = isoMillis();
    let t = Date.UTC(2026, 10, 24, 1, 2, 3, 456) + 0.123;
    for (let i = 0; i < 20_000; i++, t += 0.37) expect(at(t)).toBe(new Date(t).toISOString());
  });
});
