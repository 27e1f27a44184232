// UUIDv7 (RFC 9562), as request ids are made (src/app.ts): the first 48 bits are the Unix time in
// milliseconds, so ids compare in time order (PostgreSQL compares uuids byte by byte) and the ids
// made in a span of time are a range of ids, which an index on the id reads as one range.
import { randomUUIDv7 } from 'node:crypto';
import { sql, type Expression, type RawBuilder } from 'kysely';

/**
 * The smallest UUIDv7 of the instant `at` (a timestamptz): every id made at or after it sorts at or
 * above it. An index range needs `at` stable (now(), statement_timestamp(), a parameter): the
 * planner keeps an expression of clock_timestamp() out of index conditions.
 */
export const uuidV7Floor = (at: Expression<Date> | RawBuilder<unknown>) =>
  sql<string>`(lpad(to_hex(floor(extract(epoch from ${at}) * 1000)::bigint), 12, '0') || '00000000000000000000')::uuid`;

let lastMs = 0;
let counter = 0;
/** `xxxxxxxx-xxxx-7` of lastMs, made when it changes. */
let prefix = '';
const COUNTERS = Array.from({ length: 0x1000 }, (_, i) => i.toString(16).padStart(3, '0'));

/**
 * A UUIDv7 that sorts after every one this process made before it, within one millisecond too (RFC
 * 9562 §6.2, method 1: rand_a is a 12-bit counter that starts at 0 each millisecond). Node's
 * randomUUIDv7 fills rand_a at random, so ids of one millisecond came in any order (half of
 * 200,000 made in a loop sorted before the one made just before them); the request log pages by
 * request id, newest first. The variant and rand_b's 62 random bits are Node's. After 4,096 ids in
 * one millisecond the next ones take the next millisecond, and a clock that steps back keeps the
 * last one: the order holds either way.
 */
export function monotonicUuidV7(): string {
  const random = randomUUIDv7();
  const now = Date.now();
  if (now > lastMs) startMillisecond(now);
  else if (++counter > 0xfff) startMillisecond(lastMs + 1);
  return prefix + COUNTERS[counter] + random.slice(18);
}

function startMillisecond(ms: number) {
  lastMs = ms;
  counter = 0;
  const hex = ms.toString(16).padStart(12, '0');
  prefix = `${hex.slice(0, 8)}-${hex.slice(8)}-7`;
}
