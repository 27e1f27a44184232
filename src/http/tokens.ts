// A fixed bearer token (operator API, metrics), compared in constant time.
import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (s: string) => createHash('sha256').update(s).digest();

/** True when the Authorization header is "Bearer <token>". */
export function bearerMatches(authorization: string | undefined, token: string): boolean {
  const m = /^Bearer +(\S+) *$/i.exec(authorization ?? '');
  return m !== null && timingSafeEqual(digest(m[1]), digest(token));
}
