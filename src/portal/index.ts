// The merchant portal: a JSON API under /portal/api (session auth + CSRF) over the same services
// the operator API uses, and the React front end (web/dist) served at /portal.
import fs from 'node:fs';
import path from 'node:path';
import cookie from '@fastify/cookie';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type, type TSchema } from 'typebox';
import { AppError } from '../http/errors.ts';
import { pageRequest } from '../http/paging.ts';
import { ActionBody, Nullable, Uuid } from '../http/schemas.ts';
import { SCOPE_ALIASES, SCOPE_DESCRIPTIONS, SCOPES, WAREHOUSE_PRESET } from '../http/scopes.ts';
import { EVENT_TYPES, WAREHOUSE_EVENTS } from '../events/outbox.ts';
import { createApiKey, listApiKeys, revokeApiKey } from '../modules/api-keys/service.ts';
import { listNamed } from '../modules/reference/service.ts';
import { deliveryDetail, deliveryLog, emptyHealth, endpointHealth } from '../modules/webhook-endpoints/insight.ts';
import { ApiKeyBody } from '../modules/api-keys/schemas.ts';
import { Attempt, EndpointBody, EndpointPatch } from '../modules/webhook-endpoints/schemas.ts';
import {
  createEndpoint,
  PORTAL_MAX_ENDPOINTS,
  deleteEndpoint,
  getEndpoint,
  getEndpointState,
  listAttempts,
  listEndpoints,
  resendDelivery,
  revealSigningSecret,
  rotateSigningSecret,
  sendTestEvent,
  updateEndpoint,
} from '../modules/webhook-endpoints/service.ts';
import { sendThrottle, signInThrottle } from './throttle.ts';
import { consoleRoutes } from './console.ts';
import {
  ApiKey,
  DeliveryDetail,
  Endpoint,
  EndpointWithHealth,
  Envelope,
  Location,
  Meta,
  NewApiKey,
  NewEndpoint,
  PortalDelivery,
  SessionInfo,
  SigningSecret,
  InstantBefore,
  Page,
  PageLimit,
  checkInstantBefore,
} from './schemas.ts';
import { COOKIE, checkCsrf, clearSessionCookie, findSession, portalCtx, setSessionCookie, signIn, signOut, type Session } from './sessions.ts';

declare module 'fastify' {
  interface FastifyRequest {
    session: Session | null;
  }
}

const hidden = { hide: true } as const;
const strict = { additionalProperties: false } as const;
const Id = Type.Object({ id: Uuid() });
const IdD = Type.Object({ id: Uuid(), d: Uuid() });
const WEB_DIST = path.resolve(import.meta.dirname, '../../web/dist');
const ok = <T extends TSchema>(data: T) => ({ 200: Envelope(data) });
// An action (sign-out, key revoke, and the endpoint actions rotate-secret, test, resend) takes `{}`
// or no body at all (what the front end sends), as on the operator API.
const action = { emptyBodyOptional: true } as const;
const OPEN = ['/portal/api/login', '/portal/api/meta', '/portal/api/session'];

const api: FastifyPluginAsyncTypebox = async (app) => {
  app.decorateRequest('session', null);
  app.addHook('onRequest', async (req, reply) => {
    // Answers carry secrets (a new key, an endpoint's signing secret, the CSRF token): never kept
    // by the browser or a proxy (the signing secret was found in Chromium's disk cache).
    reply.header('Cache-Control', 'no-store');
    const token = req.cookies[COOKIE];
    const found = await findSession(app.db, token);
    req.session = found?.session ?? null;
    // The browser's cookie slides with the server's expiry, so an active user stays signed in.
    if (found?.extended) setSessionCookie(reply, req, token!, app.config.publicBaseUrl);
    const path = req.url.split('?')[0];
    // The session probe answers null rather than 401, so a signed-out page load logs no error.
    if (!OPEN.includes(path) && !req.session) throw new AppError('unauthorized', 'Sign in first.');
    if (req.session && req.method !== 'GET' && req.method !== 'HEAD' && path !== '/portal/api/login') checkCsrf(req, req.session);
  });
  const ctx = portalCtx;
  const allowPrivate = app.config.webhookAllowPrivateUrls;
  const throttle = signInThrottle(app.counters);
  const sends = sendThrottle(app.counters);
  const sessionBody = (s: Session) => ({
    user: { id: s.userId, email: s.email },
    merchant: { id: s.merchantId, name: s.merchantName },
    csrf_token: s.csrfToken,
  });

  app.get('/meta', { schema: { ...hidden, response: ok(Meta) } }, async (req) => ({
    data: {
      scopes: [...SCOPES],
      scope_descriptions: SCOPE_DESCRIPTIONS,
      scope_aliases: SCOPE_ALIASES as Record<string, string[]>,
      warehouse_scopes: WAREHOUSE_PRESET,
      event_types: [...EVENT_TYPES],
      warehouse_events: [...WAREHOUSE_EVENTS],
      request_log_retention_days: app.config.requestLogRetentionDays,
    },
    request_id: req.id,
  }));

  app.post(
    '/login',
    {
      schema: {
        ...hidden,
        body: Type.Object({ email: Type.String({ minLength: 1, maxLength: 254 }), password: Type.String({ minLength: 1, maxLength: 200 }) }, strict),
        response: ok(SessionInfo),
      },
    },
    async (req, reply) => {
      const { token, session } = await signIn(app.db, throttle, req.body.email, req.body.password, req.ip);
      setSessionCookie(reply, req, token, app.config.publicBaseUrl);
      return { data: sessionBody(session), request_id: req.id };
    },
  );
  app.post(
    '/logout',
    { schema: { ...hidden, body: ActionBody, response: ok(Type.Object({ signed_out: Type.Boolean() })) }, config: action },
    async (req, reply) => {
      await signOut(app.db, req.session!);
      clearSessionCookie(reply, req, app.config.publicBaseUrl);
      return { data: { signed_out: true }, request_id: req.id };
    },
  );
  app.get('/session', { schema: { ...hidden, response: ok(Nullable(SessionInfo)) } }, async (req) => ({
    data: req.session ? sessionBody(req.session) : null,
    request_id: req.id,
  }));

  app.get('/locations', { schema: { ...hidden, response: ok(Type.Array(Location)) } }, async (req) => {
    const { items } = await listNamed(ctx(req), 'locations', pageRequest(app.secret, '/portal/locations', { limit: 250 }), {});
    return { data: items.map((l) => ({ id: l.id, name: l.name })), request_id: req.id };
  });

  app.get('/api-keys', { schema: { ...hidden, response: ok(Type.Array(ApiKey)) } }, async (req) => ({ data: await listApiKeys(ctx(req)), request_id: req.id }));
  app.post('/api-keys', { schema: { ...hidden, body: ApiKeyBody, response: { 201: Envelope(NewApiKey) } } }, async (req, reply) => {
    reply.code(201);
    return { data: await createApiKey(ctx(req), req.body), request_id: req.id };
  });
  app.post('/api-keys/:id/revoke', { schema: { ...hidden, body: ActionBody, params: Id, response: ok(ApiKey) }, config: action }, async (req) => ({
    data: await revokeApiKey(ctx(req), req.params.id),
    request_id: req.id,
  }));

  app.get('/webhook-endpoints', { schema: { ...hidden, response: ok(Type.Array(EndpointWithHealth)) } }, async (req) => {
    const [endpoints, health] = await Promise.all([listEndpoints(ctx(req)), endpointHealth(ctx(req))]);
    return { data: endpoints.map((e) => ({ ...e, health: health.get(e.id) ?? emptyHealth() })), request_id: req.id };
  });
  app.post('/webhook-endpoints', { schema: { ...hidden, body: EndpointBody, response: { 201: Envelope(NewEndpoint) } } }, async (req, reply) => {
    reply.code(201);
    return { data: await createEndpoint(ctx(req), req.body, allowPrivate, PORTAL_MAX_ENDPOINTS), request_id: req.id };
  });
  app.get('/webhook-endpoints/:id', { schema: { ...hidden, params: Id, response: ok(EndpointWithHealth) } }, async (req) => {
    const [endpoint, health] = await Promise.all([getEndpointState(ctx(req), req.params.id), endpointHealth(ctx(req))]);
    return { data: { ...endpoint, health: health.get(endpoint.id) ?? emptyHealth() }, request_id: req.id };
  });
  app.patch('/webhook-endpoints/:id', { schema: { ...hidden, params: Id, body: EndpointPatch, response: ok(Endpoint) } }, async (req) => ({
    data: await updateEndpoint(ctx(req), req.params.id, req.body, allowPrivate),
    request_id: req.id,
  }));
  app.delete('/webhook-endpoints/:id', { schema: { ...hidden, params: Id, response: ok(Endpoint) } }, async (req) => ({
    data: await deleteEndpoint(ctx(req), req.params.id),
    request_id: req.id,
  }));
  app.get('/webhook-endpoints/:id/secret', { schema: { ...hidden, params: Id, response: ok(SigningSecret) } }, async (req) => ({
    data: await revealSigningSecret(ctx(req), req.params.id),
    request_id: req.id,
  }));
  app.post(
    '/webhook-endpoints/:id/rotate-secret',
    { schema: { ...hidden, body: ActionBody, params: Id, response: ok(NewEndpoint) }, config: action },
    async (req) => ({
      data: await rotateSigningSecret(ctx(req), req.params.id),
      request_id: req.id,
    }),
  );
  app.get(
    '/webhook-endpoints/:id/deliveries',
    {
      schema: {
        ...hidden,
        params: Id,
        querystring: Type.Object({ before: Type.Optional(InstantBefore), limit: Type.Optional(PageLimit) }, { additionalProperties: false }),
        response: { 200: Page(PortalDelivery) },
      },
    },
    async (req) => {
      checkInstantBefore(req.query.before);
      const { items, next_before } = await deliveryLog(ctx(req), req.params.id, req.query);
      return { data: items, request_id: req.id, next_before };
    },
  );
  app.get('/webhook-endpoints/:id/deliveries/:d', { schema: { ...hidden, params: IdD, response: ok(DeliveryDetail) } }, async (req) => ({
    data: await deliveryDetail(ctx(req), req.params.id, req.params.d),
    request_id: req.id,
  }));
  // The attempts alone, as the operator API lists them (the detail above has them with the request sent).
  app.get(
    '/webhook-endpoints/:id/deliveries/:d/attempts',
    {
      schema: {
        ...hidden,
        params: IdD,
        response: ok(Type.Array(Type.Pick(Attempt, ['id', 'attempt', 'status_code', 'duration_ms', 'response_excerpt', 'error', 'created_at']))),
      },
    },
    async (req) => ({ data: await listAttempts(ctx(req), req.params.id, req.params.d), request_id: req.id }),
  );
  app.post(
    '/webhook-endpoints/:id/deliveries/:d/resend',
    { schema: { ...hidden, body: ActionBody, params: IdD, response: ok(DeliveryDetail) }, config: action },
    async (req) => {
      await getEndpoint(ctx(req), req.params.id); // another merchant's or an unknown endpoint is 404, and counts nothing
      await sends.take(req.session!.merchantId, req.params.id);
      const copy = await resendDelivery(ctx(req), req.params.id, req.params.d);
      return { data: await deliveryDetail(ctx(req), req.params.id, copy.id), request_id: req.id };
    },
  );
  app.post(
    '/webhook-endpoints/:id/test',
    { schema: { ...hidden, body: ActionBody, params: Id, response: ok(DeliveryDetail) }, config: action },
    async (req) => {
      // Counted once the endpoint is known to be the merchant's: another merchant's or an unknown one is 404 and counts nothing.
      const ping = await sendTestEvent(ctx(req), req.params.id, () => sends.take(req.session!.merchantId, req.params.id));
      return { data: await deliveryDetail(ctx(req), req.params.id, ping.id), request_id: req.id };
    },
  );

  await app.register(consoleRoutes);
};

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
};

export const portal: FastifyPluginAsyncTypebox = async (app) => {
  await app.register(cookie, { secret: app.secret });
  await app.register(api, { prefix: '/portal/api' });

  // The built front end; any other /portal path is a client-side route and gets index.html, except
  // under /portal/api: an API client asking for an unknown route gets the service's 404 problem.
  const serve = async (req: FastifyRequest, reply: import('fastify').FastifyReply) => {
    const pathname = req.url.split('?')[0];
    if (/^\/portal\/api(\/|$)/.test(pathname)) return reply.callNotFound();
    const rel = decodeURIComponent(pathname.replace(/^\/portal\/?/, ''));
    let file = path.join(WEB_DIST, rel);
    // What the path names once dot segments are resolved (assets/../index.html is index.html).
    const inside = path.relative(WEB_DIST, file);
    const found = inside !== '' && !inside.startsWith('..') && !path.isAbsolute(inside) && fs.existsSync(file) && !fs.statSync(file).isDirectory();
    // A file that is not there (an asset of another build, a favicon) is 404, never index.html: HTML
    // under an asset's name was cached for a year as immutable, and the portal stayed blank.
    // Client-side routes have no file extension.
    if (!found && (rel.startsWith('assets/') || path.extname(rel) !== '')) {
      reply.header('Cache-Control', 'no-cache');
      return reply.callNotFound();
    }
    if (!found) file = path.join(WEB_DIST, 'index.html');
    if (!fs.existsSync(file)) {
      return reply
        .code(503)
        .type('text/html')
        .send('<!doctype html><title>Portal</title><p>The portal has not been built: run <code>npm run build:web</code>.</p>');
    }
    const immutable = found && inside.startsWith(`assets${path.sep}`);
    reply.header('Cache-Control', immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
    reply.header('X-Frame-Options', 'DENY');
    reply.header(
      'Content-Security-Policy',
      "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    );
    return reply.type(TYPES[path.extname(file)] ?? 'application/octet-stream').send(fs.createReadStream(file));
  };
  app.get('/portal', { schema: hidden }, serve);
  app.get('/portal/*', { schema: hidden }, serve);
};
