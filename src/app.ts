// Builds the Fastify app: shared plugins first, then the integration API, the operator API and
// the portal. Used by main.ts and by every test (through app.inject).
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyError, type FastifyInstance, type FastifyRequest, type FastifySchema } from 'fastify';
import type { Logger } from 'pino';
import type pg from 'pg';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Config } from './config.ts';
import { isConnectionFailure, type Database } from './db/database.ts';
import { isMigrated } from './db/migrate.ts';
import { monotonicUuidV7 } from './db/uuid7.ts';
import { AppError, databaseFailure, noRoute, problem } from './http/errors.ts';
import { openCounters, type CounterStore } from './http/counters.ts';
import { registerAccessLog } from './http/access-log.ts';
import { lazyChildLogger } from './http/lazy-logger.ts';
import { registerRateLimit } from './http/rate-limit.ts';
import { bearerMatches, unauthorized } from './http/tokens.ts';
import { KEY_ACKS_CHANNEL, KEY_CHANGES_CHANNEL, KEY_LISTENER_NAME, keyStore } from './http/keys.ts';
import { listen } from './db/listen.ts';
import { webhookBacklog } from './events/backlog.ts';
import { renderMetrics } from './metrics.ts';
import { createRequestLog, type RequestLogWriter } from './http/request-log.ts';
import { clientErrorHandler, frameworkErrors, refuseConnect } from './http/framework-errors.ts';
import { answering, lingerAfterAnswer, taken } from './http/connections.ts';
import { securityHeaders } from './http/security-headers.ts';
import { hostIsValid } from './http/headers.ts';
import { merchantShare, MERCHANT_WAIT_MS, type MerchantShare } from './http/merchant-share.ts';
import { registerJsonBody, takesBody } from './http/json-body.ts';
import { answerBeforeBody } from './http/idempotency.ts';
import { problems } from './http/schemas.ts';
import { validationProblem, validatorCompiler } from './http/validation.ts';
import { integrationApi } from './modules/index.ts';
import { registerOpenApi } from './openapi/index.ts';
import { platformApi } from './platform/index.ts';
import { portal } from './portal/index.ts';

declare module 'fastify' {
  interface FastifyInstance {
    db: Database;
    config: Config;
    /** Signs cursors and portal sessions. */
    secret: string;
    /** Throttle counts: this process's memory, or Redis shared by every process when REDIS_URL is set. */
    counters: CounterStore;
    /** Every route registered, in order, with its schema (the isolation matrix and fuzz tests walk them). */
    routeList: RouteEntry[];
    /** Buffered writer of the API request log (src/http/request-log.ts). */
    requestLog: RequestLogWriter;
    /** Each merchant's turns at this process (src/http/merchant-share.ts). */
    merchantShare: MerchantShare;
  }
}

/** TRUST_PROXY as a hop count: the nearest `hops` peers are proxies (as proxy-addr counts them). */
const trustHops = (hops: number) => (_address: string, hop: number) => hop < hops;

export interface RouteEntry {
  method: string;
  url: string;
  scope?: string;
  schema?: FastifySchema;
}

export const INTEGRATION_PREFIX = '/api/integrations/v1';
export const PLATFORM_PREFIX = '/api/platform/v1';
export const BODY_LIMIT = 1024 * 1024;

export interface AppOptions {
  db: Database;
  config: Config;
  secret: string;
  /** PostgreSQL: the pool behind db, whose use /metrics reports (and whose settings the LISTEN connection uses). */
  pool?: pg.Pool;
  /** A pino logger to share, or false for none (tests). */
  logger?: Logger | false;
}

/** The query string of an operation that takes no parameters: empty, or 422 naming each one sent. */
const NO_QUERY = { type: 'object', properties: {}, additionalProperties: false } as const;

export async function buildApp(opts: AppOptions) {
  const headers = securityHeaders(opts.config.publicBaseUrl);
  // The app's logger for Node's parser errors, which the constructor's options are given before it exists.
  const early: { log?: FastifyBaseLogger } = {};
  const app = Fastify({
    ...(opts.logger
      ? { loggerInstance: opts.logger as unknown as FastifyBaseLogger }
      : { logger: opts.logger === false ? false : { level: opts.config.logLevel } }),
    // Time-ordered (UUIDv7, in order within a millisecond too): later requests sort after earlier
    // ones, the request log is keyed and paged by them, and its indexes grow at their end instead of
    // taking each id at a random page (docs/decisions.md).
    genReqId: monotonicUuidV7,
    childLoggerFactory: lazyChildLogger,
    requestIdHeader: false,
    // One line per request, written by registerAccessLog (with merchant and key), not Fastify's two.
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'request_id' }),
    bodyLimit: BODY_LIMIT,
    // Behind a load balancer every client has its address: the sign-in throttle and the keyless rate
    // limit count per client, not per proxy (TRUST_PROXY; unset, X-Forwarded-For is not believed).
    trustProxy: typeof opts.config.trustProxy === 'number' ? trustHops(opts.config.trustProxy) : opts.config.trustProxy,
    ajv: undefined,
    // Path ids of any length reach their route and fail its UUID rule (404), rather than the router's 414.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 16 * 1024 },
    frameworkErrors: frameworkErrors.bind(null, headers),
    clientErrorHandler: clientErrorHandler.bind(null, headers, early),
    // A request whose headers or body stop arriving is answered 408 (clientErrorHandler) and its
    // connection closed: Fastify's default, 0, kept a connection that sent part of its body open
    // for ever (slowloris). Node looks for such requests every connectionsCheckingInterval.
    requestTimeout: opts.config.requestTimeoutMs,
    // Requests that arrive while closing are refused by an onRequest hook (below), as a problem.
    return503OnClosing: false,
    http: {
      requestTimeout: opts.config.requestTimeoutMs,
      headersTimeout: Math.min(60_000, opts.config.requestTimeoutMs),
      connectionsCheckingInterval: Math.max(50, Math.min(5_000, Math.floor(opts.config.requestTimeoutMs / 4))),
      // Checked in an onRequest hook instead, so the answer is a problem like every other.
      requireHostHeader: false,
    },
  }).withTypeProvider<TypeBoxTypeProvider>();

  early.log = app.log;
  app.decorate('db', opts.db);
  app.decorate('config', opts.config);
  app.decorate('secret', opts.secret);
  app.decorate('merchantShare', merchantShare(opts.config.merchantConcurrency, MERCHANT_WAIT_MS));
  app.decorateRequest('auth', null);
  app.decorateRequest('loggedKey', null);
  // Embedded PGlite is one session in this very thread: fewer, larger writes cost the requests less.
  // It is also one process, whose readers flush first, so the longer interval costs no freshness.
  const flushMs = opts.config.databaseUrl ? 1000 : 5000;
  app.decorate('requestLog', createRequestLog(opts.db, app.log, { enabled: opts.config.requestLogEnabled, flushMs, pool: opts.pool }));
  // Written before the database closes: the app closes first on shutdown.
  app.addHook('onClose', async () => app.requestLog.close());
  app.setValidatorCompiler(validatorCompiler);
  trackKeyChanges(app, opts);

  // Validation errors are turned into problems by us (and, for idempotent writes, stored).
  app.decorate('routeList', [] as RouteEntry[]);
  app.addHook('onRoute', (route) => {
    route.attachValidation = true;
    // A documented API operation without query parameters still refuses unknown ones (contract §2:
    // 422 naming each), as the lists do: a GET by id used to ignore `?foo=bar`.
    if (route.url.startsWith('/api/') && route.schema?.response) {
      // Any request may be 400 before its operation looks at it (a path or query string that is
      // not valid percent-encoding, no Host): every documented operation says so.
      const response = { ...problems('malformed_request'), ...(route.schema.response as Record<string, unknown>) };
      route.schema = route.schema.querystring
        ? { ...route.schema, response }
        : { ...route.schema, querystring: NO_QUERY, response: { ...problems('validation_failed'), ...response } };
    }
    for (const method of [route.method].flat()) app.routeList.push({ method, url: route.url, scope: route.config?.scope, schema: route.schema });
  });
  // These hooks run on every request: plain callbacks, not async functions (no promise and further
  // tick each).
  app.addHook('preHandler', (req, _reply, done) => {
    if (req.validationError && !req.routeOptions.config.idempotent) return done(validationProblem(req.validationError));
    done();
  });
  // Once app.close() begins (shutdown), every answer carries `Connection: close`: a keep-alive
  // connection whose request was in flight then closes after its answer, instead of staying open
  // for the 72 s keep-alive timeout while the shutdown waits for it. Connections idle when closing
  // begins are closed by Node's server.close(); one whose answer was already on its way then (sent
  // keep-alive) by the sweep below, which runs only while draining: no hook on every request.
  let draining = false;
  let sweep: NodeJS.Timeout | undefined;
  app.addHook('preClose', (done) => {
    draining = true;
    sweep = setInterval(() => app.server.closeIdleConnections(), 50).unref();
    done();
  });
  app.addHook('onClose', (_app, done) => {
    clearInterval(sweep);
    done();
  });
  // Only the last answer of a connection closes it: pipelined requests the app already took (and
  // applied) were never answered when the first answer closed the connection. An answer leaves
  // the count here, as it is sent (src/http/connections.ts), with no onResponse hook of its own.
  app.addHook('onSend', (req, reply, payload, done) => {
    reply.header('X-Request-Id', req.id).headers(headers);
    const left = answering(req.raw, (then) => reply.raw.once('finish', then).once('close', then));
    if (draining && left <= 0) reply.header('Connection', 'close');
    // Fastify closes the connection after a body it could not parse; requests Node had already
    // taken after it (and the app applied) were then never answered.
    else if (left > 0 && reply.getHeader('connection') === 'close') reply.removeHeader('connection');
    // An answer that closes the connection before the body has arrived (413) lets the client send
    // it all first, so the client reads the answer instead of a reset (src/http/connections.ts).
    else if (reply.getHeader('connection') === 'close') lingerAfterAnswer(req.raw);
    done(null, payload);
  });
  // A request that reaches the app after closing began (on a connection busy when it began) is
  // refused with our own 503 problem (X-Request-Id, Retry-After), not Fastify's bare JSON 503.
  // Then what Node and the router let through unchecked: a query string that is not valid
  // percent-encoded UTF-8 (it was searched for as literal text, while the same bytes in a path are
  // 400), and an HTTP/1.1 request without Host (Node answered it with a bare 400: no problem body,
  // no X-Request-Id).
  // An Expect other than 100-continue is served like any request (RFC 9110 §10.1.1 lets a server
  // ignore it): Node answered a bare 417, without a problem body or X-Request-Id.
  app.server.on('checkExpectation', (req, res) => app.server.emit('request', req, res));
  // A CONNECT request got no answer at all: Node drops its connection when nobody listens.
  app.server.on('connect', (_req, socket: Socket) => refuseConnect(headers, early, socket));
  app.addHook('onRequest', (req, _reply, done) => {
    taken(req.raw);
    if (draining) return done(shuttingDown());
    const q = req.url.indexOf('?');
    if (q !== -1 && req.url.includes('%', q)) {
      try {
        decodeURIComponent(req.url.slice(q + 1));
      } catch {
        return done(new AppError('malformed_request', 'The query string is not valid percent-encoded UTF-8.'));
      }
    }
    // Node's parser takes HTTP/2.0 (and other majors) in a request line and answered as if 1.x.
    if (req.raw.httpVersionMajor !== 1) {
      return done(new AppError('malformed_request', `The request is not valid HTTP/1.1 (HTTP/${req.raw.httpVersion} in the request line).`));
    }
    if (req.headers.host === undefined && req.raw.httpVersion === '1.1') {
      return done(new AppError('malformed_request', 'An HTTP/1.1 request needs a Host header.'));
    }
    // Two Host headers, or one that is no host[:port], are 400 (Node served them).
    if (!hostIsValid(req.raw)) {
      return done(new AppError('malformed_request', 'Send one Host header naming the host (and port).'));
    }
    done();
  });
  // UTF-8 JSON bodies only: other encodings and charsets are 415, invalid UTF-8 is 400 (json-body.ts).
  app.removeContentTypeParser('application/json');
  registerJsonBody(app);
  // A write whose route takes a body must send JSON: anything else is 415, even an empty body. An
  // action whose body can only be `{}` (an operator cancel) may send none at all, as other actions do.
  app.addHook('preValidation', (req, _reply, done) => {
    if (!takesBody(req)) return done();
    const type = req.headers['content-type'] ?? '';
    if (req.routeOptions.config.emptyBodyOptional && type === '' && req.body === undefined && !hasBody(req.raw)) {
      req.body = {};
      return done();
    }
    if (!/^application\/(.+\+)?json\s*(;|$)/i.test(type)) {
      return done(new AppError('unsupported_media_type', 'Send the body as JSON with "Content-Type: application/json".'));
    }
    done();
  });

  // A 500 is logged with its stack, every time. A 503 is expected while the database is out or the
  // process stops (each request's own line says 503 already): one warning, without a stack, every 5
  // s at most, with how many were left out (an outage under load wrote ~80 KB of stacks a second).
  let lastUnavailable = 0;
  let unavailableSince = 0;
  const logFailure = (req: FastifyRequest, err: unknown, appError: AppError) => {
    if (appError.status < 500) return;
    if (appError.code !== 'service_unavailable') return req.log.error({ err }, 'request failed');
    unavailableSince++;
    if (Date.now() - lastUnavailable < 5_000) return;
    lastUnavailable = Date.now();
    const e = err as { message?: string; code?: string };
    req.log.warn(
      { reason: e.message, code: e.code, answered_503: unavailableSince },
      'requests answered 503 (nothing applied): the database is unavailable or the process is stopping',
    );
    unavailableSince = 0;
  };
  app.setErrorHandler(async (err: FastifyError, req, reply) => {
    // The request's own stream failed: the client closed the connection before its body arrived
    // (Node's "aborted", code ECONNRESET, which toAppError would take for the database's and log as
    // a failure). Nothing failed on our side, and nobody is left to read the answer.
    if (err === req.raw.errored) {
      req.log.info({ code: err.code }, 'the client closed the connection before its body arrived');
      return reply
        .code(400)
        .type('application/problem+json')
        .send(problem(new AppError('malformed_request', 'The body did not arrive.'), req.id));
    }
    let appError = toAppError(err);
    logFailure(req, err, appError);
    // An idempotent write refused before its body was read: stored under its Idempotency-Key too
    // (or answered 409 / 422 by the key's record, as any write under it is).
    try {
      if (await answerBeforeBody(req, reply, appError)) return reply;
    } catch (keyErr) {
      appError = toAppError(keyErr as FastifyError);
      logFailure(req, keyErr, appError);
    }
    for (const [k, v] of Object.entries(appError.headers)) reply.header(k, v);
    return reply.code(appError.status).type('application/problem+json').send(problem(appError, req.id));
  });
  app.setNotFoundHandler(noRoute);

  registerAccessLog(app);

  const counters = openCounters({ redisUrl: opts.config.redisUrl, keyPrefix: opts.config.redisKeyPrefix });
  app.decorate('counters', counters.store);
  app.addHook('onClose', () => counters.close());
  await counters.ready;
  await registerRateLimit(app, { perMinute: opts.config.rateLimitPerMinute, redis: counters.redis, keyPrefix: opts.config.redisKeyPrefix });

  await registerOpenApi(app, { integration: INTEGRATION_PREFIX, platform: PLATFORM_PREFIX });

  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { schema: { hide: true } }, async (_req, reply) => {
    // A database that holds the connection and answers nothing (a stall) is not ready either: the
    // probe answers after READY_WITHIN_MS, not after the statement's own timeout (30 s by default,
    // longer than a probe waits).
    let timer: NodeJS.Timeout | undefined;
    const answered = await Promise.race([
      isMigrated(app.db).catch(() => false),
      new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), READY_WITHIN_MS))),
    ]);
    clearTimeout(timer);
    if (answered) return { status: 'ready' };
    return reply
      .code(503)
      .header('Retry-After', '1')
      .type('application/problem+json')
      .send(
        problem(
          new AppError('service_unavailable', `The database is not reachable, did not answer within ${READY_WITHIN_MS / 1000} s, or is not migrated.`),
          _req.id,
        ),
      );
  });
  app.get('/', { schema: { hide: true } }, async (_req, reply) => reply.redirect('/portal'));
  app.get('/metrics', { schema: { hide: true } }, async (req, reply) => {
    const token = opts.config.metricsToken;
    if (!token) throw new AppError('not_found', 'Metrics are not served on this port: set METRICS_TOKEN (or METRICS_PORT for a separate port).');
    if (!bearerMatches(req.raw, token)) {
      throw unauthorized('Send one header "Authorization: Bearer <METRICS_TOKEN>".');
    }
    const { contentType, body } = await renderMetrics({ backlog: () => webhookBacklog(opts.db), pool: opts.pool });
    return reply.type(contentType).send(body);
  });

  await app.register(integrationApi, { prefix: INTEGRATION_PREFIX });
  await app.register(platformApi, { prefix: PLATFORM_PREFIX });
  await app.register(portal);

  return app as unknown as FastifyInstance;
}

/**
 * The key cache (src/http/keys.ts) is trusted while this process hears every revocation: always on
 * embedded PGlite (one process: revocations forget keys directly), on PostgreSQL while the LISTEN
 * connection is up.
 */
function trackKeyChanges(app: FastifyInstance, opts: AppOptions) {
  const keys = keyStore(opts.db);
  keys.onTouchError((err) => app.log.warn({ err }, 'last_used_at of API keys not written'));
  let trusted = false;
  const trust = () => {
    trusted = true;
    keys.trust();
  };
  const distrust = () => {
    if (trusted) keys.distrust();
    trusted = false;
  };
  const listener = opts.pool
    ? listen(
        opts.pool,
        {
          channels: [KEY_CHANGES_CHANNEL, KEY_ACKS_CHANNEL],
          applicationName: KEY_LISTENER_NAME,
          onNotify(channel, id) {
            if (channel === KEY_ACKS_CHANNEL) return id && keys.acknowledged(id);
            if (!id) return keys.forgetAll();
            keys.forget(id);
            listener?.notify(KEY_ACKS_CHANNEL, id);
          },
          onConnected() {
            keys.listening(true);
            trust();
          },
          onLost() {
            keys.listening(false);
            distrust();
          },
        },
        app.log,
      )
    : (trust(), null);
  app.addHook('onClose', async () => {
    await listener?.close();
    if (trusted) keys.listening(false);
    distrust();
    await keys.flushTouches().catch((err: unknown) => app.log.warn({ err }, 'last_used_at of API keys not written'));
  });
}

/** How long /readyz waits for the database's answer. */
const READY_WITHIN_MS = 2_000;

const shuttingDown = () =>
  new AppError('service_unavailable', 'This instance is shutting down; nothing was applied. Retry (another instance answers).', undefined, {
    'Retry-After': '1',
  });

/** The request carries a body: a Transfer-Encoding, or a Content-Length above 0. */
const hasBody = (raw: IncomingMessage) => raw.headers['transfer-encoding'] !== undefined || Number(raw.headers['content-length'] ?? 0) > 0;

function toAppError(err: FastifyError & { validation?: unknown }): AppError {
  if (err instanceof AppError) return err;
  if (isConnectionFailure(err)) return databaseFailure(err);
  if (err.validation) return validationProblem(err);
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('payload_too_large', `The body is larger than ${BODY_LIMIT} bytes (1 MiB).`);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError('unsupported_media_type', 'Send the body as JSON with "Content-Type: application/json".');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError('malformed_request', 'The body is empty; send a JSON object.');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new AppError('malformed_request', 'Content-Length does not match the body.');
  }
  if (err instanceof SyntaxError || err.code === 'FST_ERR_CTP_INVALID_JSON_BODY') {
    return new AppError('malformed_request', `The body is not valid JSON: ${err.message}`);
  }
  if (err.statusCode === 429) return new AppError('rate_limited', 'Too many requests.');
  if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) return new AppError('malformed_request', err.message);
  return new AppError('internal_error', 'Something went wrong on our side. It has been logged; retrying is safe.');
}
