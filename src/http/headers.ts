// Header checks Node leaves to the application: it merges or drops the repeats of most headers, so
// a second Content-Type or Host was never looked at (src/http/json-body.ts, src/app.ts).
import type { IncomingMessage } from 'node:http';

/** How many times a header was sent (`name` in lower case). */
export function countHeader(rawHeaders: string[], name: string): number {
  let n = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) if (rawHeaders[i].length === name.length && rawHeaders[i].toLowerCase() === name) n++;
  return n;
}

/** RFC 9112 §3.2: one Host header naming a host (and port); not a URL, a path or a user. */
export const hostIsValid = (req: IncomingMessage): boolean =>
  req.headers.host === undefined || (!/[\s/?#@\\]/.test(req.headers.host) && countHeader(req.rawHeaders, 'host') === 1);
