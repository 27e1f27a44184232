// Builds the Fastify app: shared plugins first, then the integration API, the operator API and
// the portal. Used by main.ts and by every test (through app.inject).
import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyBaseLogger, type FastifyError, type FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { Logger } from 'pino';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Config } from './config.ts';
import type { Database } from './db/database.ts';
import { isMigrated } from './db/migrate.ts';
import { AppError, ERROR_CODES, ERROR_DESCRIPTIONS, problem, type ErrorCode } from './http/errors.ts';
import { openCounters, type CounterStore } from './http/counters.ts';
import { registerRateLimit } from './http/rate-limit.ts';
import { validationProblem, validatorCompiler } from './http/validation.ts';
import { integrationApi } from './modules/index.ts';
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
    /** Every route registered, in order (the isolation matrix test walks them). */
    routeList: { method: string; url: string; scope?: string }[];
  }
}

export const INTEGRATION_PREFIX = '/api/integrations/v1';
export const PLATFORM_PREFIX = '/api/platform/v1';
export const BODY_LIMIT = 1024 * 1024;

export interface AppOptions {
  db: Database;
  config: Config;
  secret: string;
  /** A pino logger to share, or false for none (tests). */
  logger?: Logger | false;
}

export async function buildApp(opts: AppOptions) {
  const app = Fastify({
    ...(opts.logger ? { loggerInstance: opts.logger as unknown as FastifyBaseLogger } : { logger: opts.logger === false ? false : { level: opts.config.logLevel } }),
    genReqId: () => randomUUID(),
    requestIdHeader: false,
    bodyLimit: BODY_LIMIT,
    ajv: undefined,
    routerOptions: { ignoreTrailingSlash: true },
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.decorate('db', opts.db);
  app.decorate('config', opts.config);
  app.decorate('secret', opts.secret);
  app.decorateRequest('auth', null);
  app.setValidatorCompiler(validatorCompiler as never);

  // Validation errors are turned into problems by us (and, for idempotent writes, stored).
  app.decorate('routeList', [] as { method: string; url: string; scope?: string }[]);
  app.addHook('onRoute', (route) => {
    route.attachValidation = true;
    for (const method of [route.method].flat()) app.routeList.push({ method, url: route.url, scope: route.config?.scope });
  });
  app.addHook('preHandler', async (req) => {
    if (req.validationError && !req.routeOptions.config.idempotent) throw validationProblem(req.validationError as never);
  });
  app.addHook('onSend', async (req, reply) => {
    reply.header('X-Request-Id', req.id);
  });
  // A write whose route takes a body must send JSON: anything else is 415, even an empty body.
  app.addHook('preValidation', async (req) => {
    if (!req.routeOptions.schema?.body || req.method === 'GET' || req.method === 'DELETE') return;
    const type = req.headers['content-type'] ?? '';
    if (!/^application\/(.+\+)?json\s*(;|$)/i.test(type)) {
      throw new AppError('unsupported_media_type', 'Send the body as JSON with "Content-Type: application/json".');
    }
  });

  app.setErrorHandler((err: FastifyError, req, reply) => {
    const appError = toAppError(err);
    if (appError.status >= 500) req.log.error({ err }, 'request failed');
    for (const [k, v] of Object.entries(appError.headers)) reply.header(k, v);
    return reply.code(appError.status).type('application/problem+json').send(problem(appError, req.id));
  });
  app.setNotFoundHandler((req, reply) => {
    const err = new AppError('not_found', `No route ${req.method} ${req.url.split('?')[0]}.`);
    return reply.code(404).type('application/problem+json').send(problem(err, req.id));
  });

  const counters = openCounters({ redisUrl: opts.config.redisUrl, keyPrefix: opts.config.redisKeyPrefix });
  app.decorate('counters', counters.store);
  app.addHook('onClose', () => counters.close());
  await registerRateLimit(app, { perMinute: opts.config.rateLimitPerMinute, redis: counters.redis, keyPrefix: opts.config.redisKeyPrefix });

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Merchant Integration API',
        version: '1.0.0',
        description: API_DESCRIPTION,
        contact: { name: 'Integration support', email: 'integrations@example.com' },
        license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
      },
      servers: [{ url: '/', description: 'This server' }],
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <API key> (preferred)' },
          apiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'Fallback when Authorization is absent' },
        },
      },
      security: [{ bearerAuth: [] }, { apiKeyHeader: [] }],
      tags: [
        { name: 'Products', description: 'Native and connected products with variants, media and inventory.' },
        { name: 'Collections', description: 'Manual and smart collections.' },
        { name: 'Orders', description: 'Orders to fulfil.' },
        { name: 'Fulfillments', description: 'Fulfillments and tracking written back by the warehouse.' },
        { name: 'Inventory', description: 'Stock per variant and location, and adjustments.' },
        { name: 'Social videos', description: 'Videos linked to products and collections.' },
        { name: 'Reference data', description: 'Locations, vendors, tags and media assets.' },
      ],
    },
    transform: ({ schema, url, route }) => {
      const hide = !url.startsWith(INTEGRATION_PREFIX) || url.endsWith('/openapi.json');
      const transformed = { ...(schema ?? {}), hide: hide || (schema as { hide?: boolean })?.hide } as Record<string, unknown>;
      if (!hide && route.config?.scope) transformed.security = [{ bearerAuth: [] }, { apiKeyHeader: [] }];
      if (!hide) {
        // operationIds are the names generated clients use: each route states its own.
        if (!transformed.operationId) throw new Error(`${route.method} ${url} has no operationId`);
        transformed.description ??= transformed.summary;
      }
      return { schema: transformed as never, url };
    },
  });

  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { schema: { hide: true } }, async (_req, reply) => {
    try {
      if (await isMigrated(app.db)) return { status: 'ready' };
    } catch {}
    return reply.code(503).type('application/problem+json').send(problem(new AppError('service_unavailable', 'The database is not reachable or not migrated.'), _req.id));
  });
  app.get('/errors', { schema: { hide: true } }, async (_req, reply) => reply.type('text/html').send(errorsPage()));
  app.get('/', { schema: { hide: true } }, async (_req, reply) => reply.redirect('/portal'));
  app.get(`${INTEGRATION_PREFIX}/openapi.json`, { schema: { hide: true } }, async () => app.swagger());

  await app.register(integrationApi, { prefix: INTEGRATION_PREFIX });
  await app.register(platformApi, { prefix: PLATFORM_PREFIX });
  await app.register(portal);

  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: { deepLinking: true, docExpansion: 'list' },
    staticCSP: true,
  });

  return app as unknown as FastifyInstance;
}

function toAppError(err: FastifyError & { validation?: unknown }): AppError {
  if (err instanceof AppError) return err;
  if (err.validation) return validationProblem(err as never);
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

const API_DESCRIPTION = `The merchant-scoped API for warehouses, 3PLs and other integrations: read a merchant's catalog and
orders, write back fulfillments, tracking and inventory.

* **Authentication**: \`Authorization: Bearer <API key>\` (or \`X-API-Key\` when Authorization is absent). Keys are
  created in the merchant portal, carry scopes, and may be restricted to fulfillment locations.
* **Envelopes**: \`{"data": ..., "request_id"}\`; lists add \`meta: {limit, next_cursor}\`. Every response carries
  \`X-Request-Id\`.
* **Errors**: RFC 9457 problem details (\`application/problem+json\`) with a stable \`code\`; validation errors list
  every field as a JSON pointer in \`errors[]\`. See [/errors](/errors).
* **Lists**: ordered by \`(updated_at, id)\` ascending; \`limit\` 1..250 (default 50); \`cursor\` is opaque and bound to
  the filters it was made with; \`updated_after\` is accepted everywhere. Writes commit out of order, so an
  incremental sync should overlap its \`updated_after\` a little and de-duplicate by id.
* **Idempotency**: fulfillment create, tracking attach and inventory adjustments accept \`Idempotency-Key\`
  (1..255 printable ASCII, kept 48 h); a replay answers the stored response with \`Idempotent-Replayed: true\`.
* **Rate limits**: per key (default 600/min), with \`RateLimit-Policy\` and \`RateLimit\` headers (IETF draft-10) and
  \`Retry-After\` on 429.
* **Webhooks**: signed with HMAC-SHA256 over \`timestamp.raw_body\`; see the README.`;

function errorsPage(): string {
  const rows = (Object.keys(ERROR_CODES) as ErrorCode[])
    .map((c) => `<tr id="${c}"><td><code>${c}</code></td><td>${ERROR_CODES[c].status}</td><td>${ERROR_DESCRIPTIONS[c]}</td></tr>`)
    .join('\n');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Error codes</title>
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:900px;margin:2rem auto;padding:0 1rem}td,th{padding:.4rem .6rem;border-bottom:1px solid #ddd;text-align:left;vertical-align:top}:target{background:#fff6d5}</style>
</head><body><h1>Error codes</h1><p>Every error is an RFC 9457 problem (<code>application/problem+json</code>) whose <code>type</code> links here and whose <code>code</code> is one of these.</p>
<table><tr><th>code</th><th>status</th><th>meaning</th></tr>${rows}</table></body></html>`;
}
