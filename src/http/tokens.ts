// Bearer tokens: reading one from an Authorization header, comparing a fixed one (operator API,
// metrics) in constant time, and the 401 that asks for one.
import { hash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { AppError } from './errors.ts';

const digest = (s: string) => hash('sha256', s, 'buffer');

/** The token of an "Authorization: Bearer <token>" header, or null when the header is not that. */
export function bearerToken(authorization: string | undefined): string | null {
  const m = /^Bearer +(\S+) *$/i.exec(authorization ?? '');
  return m ? m[1] : null;
}

/**
 * True when the request sent one Authorization header, "Bearer <token>". Two are refused, as the
 * integration API refuses them (auth.ts): Node keeps the first, a proxy may read the last, and
 * which credential acts must not depend on that.
 */
export function bearerMatches(raw: Pick<IncomingMessage, 'headers' | 'rawHeaders'>, token: string): boolean {
  if (headerCount(raw.rawHeaders, 'authorization') > 1) return false;
  const given = bearerToken(raw.headers.authorization);
  return given !== null && timingSafeEqual(digest(given), digest(token));
}

/** 401 with `WWW-Authenticate: Bearer` (integration API, operator API, metrics). */
export const unauthorized = (detail: string) => new AppError('unauthorized', detail, undefined, { 'WWW-Authenticate': 'Bearer' });

/** How many times the request sent the header `name` (lower case), from Node's [name, value, …] list. */
export function headerCount(rawHeaders: string[], name: string): number {
  let n = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) if (rawHeaders[i].length === name.length && rawHeaders[i].toLowerCase() === name) n++;
  return n;
}
