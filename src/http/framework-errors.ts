// Errors raised before a request reaches a route: the router's (a path that is not valid
// percent-encoding, a path parameter over the router's length) and Node's HTTP parser's (headers
// over 16 KB, invalid header characters, a malformed request line). They get the same RFC 9457
// problem, X-Request-Id and security headers (security-headers.ts) as every other answer.
import http from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import { logUnrouted } from './access-log.ts';
import { afterAnswers } from './connections.ts';
import { monotonicUuidV7 } from '../db/uuid7.ts';
import { AppError, problem } from './errors.ts';

/** Fastify `frameworkErrors`: a request object exists (with its generated id), no route does. */
export function frameworkErrors(headers: Readonly<Record<string, string>>, err: Error & { code?: string }, req: FastifyRequest, reply: FastifyReply) {
  const appError =
    err.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? new AppError('not_found', 'No such record.') // an id that long is not a UUID (contract: 404)
      : new AppError('malformed_request', err.code === 'FST_ERR_BAD_URL' ? 'The path is not valid percent-encoded UTF-8.' : 'The request could not be routed.');
  // Not returned: Fastify wants nothing back from this hook, and a reply is a thenable.
  reply.code(appError.status).header('X-Request-Id', req.id).headers(headers).type('application/problem+json').send(problem(appError, req.id));
  logUnrouted(req.server.log, { requestId: req.id, method: req.method, path: req.url.split('?')[0], status: appError.status, durationMs: reply.elapsedTime });
}

/**
 * Fastify `clientErrorHandler`: Node's parser refused the request; only the raw socket is left.
 * `logger.log` is the app's (set once the app exists: this handler is given before).
 */
export function clientErrorHandler(
  headers: Readonly<Record<string, string>>,
  logger: { log?: FastifyBaseLogger },
  err: Error & { code?: string },
  socket: Socket,
) {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const appError =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? inRequestLine(err)
        ? new AppError('uri_too_long', 'The URL is longer than 16 KB.')
        : new AppError('headers_too_large', 'The request headers (with the request line) are larger than 16 KB.')
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? new AppError('request_timeout', 'The request was not received in time.')
        : new AppError('malformed_request', `The request is not valid HTTP/1.1 (${err.code ?? 'parse error'}).`);
  // Requests taken before this one on the connection (pipelined) are answered first: the app
  // applied them, and their answers were lost when this one closed the connection at once.
  afterAnswers(socket, () => refuse(headers, logger, err, socket, appError));
}

/**
 * The 16 KB ran out in a request line (the URL), not in a header: the line the parser stopped in
 * starts with a method and a space, which no header line can (a field name holds no space). Read
 * from the bytes Node was parsing; a URL spread over several reads, whose last read holds no line
 * start, is taken for a header (431).
 */
function inRequestLine(err: Error & { rawPacket?: Buffer; bytesParsed?: number }): boolean {
  if (!err.rawPacket) return false;
  const parsed = err.rawPacket.subarray(0, err.bytesParsed ?? err.rawPacket.length).toString('latin1');
  return /^[A-Za-z]+ [^\s]/.test(parsed.slice(parsed.lastIndexOf('\n') + 1));
}

/** `CONNECT` (a proxy's method; its target is no path of ours): answered 400, as Node only drops it. */
export function refuseConnect(headers: Readonly<Record<string, string>>, logger: { log?: FastifyBaseLogger }, socket: Socket) {
  socket.on('error', () => {}); // Node listens on a parser's sockets, not on one handed over (a reset would throw)
  const appError = new AppError('malformed_request', 'CONNECT is not supported: this is an API, not a proxy.');
  refuse(headers, logger, new Error(appError.message), socket, appError);
}

function refuse(headers: Readonly<Record<string, string>>, logger: { log?: FastifyBaseLogger }, err: Error, socket: Socket, appError: AppError) {
  if (socket.destroyed) return;
  // A response already under way on this connection cannot be followed by another one.
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (socket.writable && !inFlight?.headersSent) {
    const id = monotonicUuidV7();
    const body = JSON.stringify(problem(appError, id));
    socket.write(
      `HTTP/1.1 ${appError.status} ${http.STATUS_CODES[appError.status]}\r\n` +
        `Date: ${new Date().toUTCString()}\r\n` +
        'Content-Type: application/problem+json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Request-Id: ${id}\r\n` +
        Object.entries(headers)
          .map(([k, v]) => `${k}: ${v}\r\n`)
          .join('') +
        'Connection: close\r\n\r\n' +
        body,
    );
    if (logger.log) logUnrouted(logger.log, { requestId: id, method: null, path: null, status: appError.status, durationMs: 0 });
  }
  socket.destroy(err);
}
