// The access log: one process log line per request, written when the answer has gone: who
// (merchant, key id — never a secret), what (method, route), the outcome (status, duration) and the
// request id to find it again (request_id, bound to every line logged during the request). Health
// checks and metric scrapes are logged at debug so they do not drown the rest. The same hook
// records the request metrics. (The merchant-facing request log in the database is request-log.ts.)
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { httpRequestDuration } from '../metrics.ts';
import { logs } from './lazy-logger.ts';
import { redactSecrets } from './redact.ts';

const QUIET = new Set(['/healthz', '/readyz', '/metrics']);

/** The merchant a request acted for: its API key's, its portal session's, or the operator path's. */
function merchantOf(req: FastifyRequest): string | null {
  // The portal declares `session` on the request; read it structurally so http/ does not import portal/.
  const session = (req as unknown as { session?: { merchantId?: string } | null }).session;
  const params = req.params as { merchant_id?: string } | undefined;
  return req.auth?.merchantId ?? session?.merchantId ?? params?.merchant_id ?? null;
}

export function registerAccessLog(app: FastifyInstance) {
  // A plain callback (no async function: no promise and further tick per request); the line is
  // built only when its level is logged.
  app.addHook('onResponse', (req: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
    const route = req.routeOptions.url ?? null;
    const status = reply.statusCode;
    // mia_http_requests_total is this histogram's count, read when scraped (metrics.ts).
    httpRequestDuration.observe({ method: req.method, route: route ?? 'unmatched', status: String(status) }, reply.elapsedTime / 1000);

    // Quiet by route: the path is split from the query only for a line that is written.
    const level = route !== null && QUIET.has(route) ? 'debug' : 'info';
    // Through the app's logger with the request id, as the request's own would bind it: that one
    // is made only when something logs on it (lazy-logger.ts). No level (tests' logger): no line.
    if (logs(app.log, level)) {
      writeLine(app.log, level, req.id, req.method, route, req.url.split('?')[0], status, reply.elapsedTime, merchantOf(req), req.auth?.apiKeyId ?? null);
    }
    done();
  });
}

/**
 * The access line and request metric of an answer given before any route ran, where no onResponse
 * hook fires: the router's (a path that is not percent-encoded UTF-8) and Node's HTTP parser's (an
 * unknown method, headers over 16 KB): their X-Request-Id is found in the log like any other.
 * `method` is null when the parser could not read it (the metric's label is then "unknown").
 */
export function logUnrouted(
  log: FastifyBaseLogger,
  answer: { requestId: string; method: string | null; path: string | null; status: number; durationMs: number },
) {
  const method = answer.method ?? 'unknown';
  httpRequestDuration.observe({ method, route: 'unmatched', status: String(answer.status) }, answer.durationMs / 1000);
  if (logs(log, 'info')) writeLine(log, 'info', answer.requestId, method, null, answer.path, answer.status, answer.durationMs, null, null);
}

/** The access line (positional, so the hot path builds no object before the level is known to log). */
function writeLine(
  log: FastifyBaseLogger,
  level: 'info' | 'debug',
  requestId: string,
  method: string,
  route: string | null,
  path: string | null,
  status: number,
  durationMs: number,
  merchantId: string | null,
  keyId: string | null,
) {
  const line = {
    request_id: requestId,
    method,
    route,
    // A key or signing secret a client put in its path (a mistaken URL) is not written.
    path: path === null ? null : redactSecrets(path),
    status,
    duration_ms: Math.round(durationMs * 10) / 10,
    merchant_id: merchantId,
    key_id: keyId,
  };
  log[level](line, `${method} ${line.path ?? '(unparsed)'} ${status} ${line.duration_ms} ms`);
}
