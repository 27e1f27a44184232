// The portal's integration console: the API request log, the events page and the overview.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { Uuid } from '../http/schemas.ts';
import { EVENT_TYPES } from '../events/outbox.ts';
import { listApiKeys } from '../modules/api-keys/service.ts';
import { recentEvents } from '../modules/event-log/service.ts';
import { StatusClass } from '../modules/request-log/schemas.ts';
import { getRequest, listRequests, requestStats } from '../modules/request-log/service.ts';
import { emptyHealth, endpointHealth, failingCount, failingDeliveries } from '../modules/webhook-endpoints/insight.ts';
import { listEndpoints } from '../modules/webhook-endpoints/service.ts';
import { Envelope, InstantBefore, LoggedEvent, LoggedRequest, Overview, Page, PageLimit, checkInstantBefore } from './schemas.ts';
import { portalCtx } from './sessions.ts';

const hidden = { hide: true } as const;
const strict = { additionalProperties: false } as const;
const Limit = PageLimit;

export const RequestLogQuery = Type.Object(
  {
    key_id: Type.Optional(Uuid()),
    status_class: Type.Optional(StatusClass),
    path: Type.Optional(Type.String({ maxLength: 200 })),
    request_id: Type.Optional(Uuid()),
    // The last entry's id (its request id) on the page before.
    before: Type.Optional(Uuid()),
    limit: Type.Optional(Limit),
  },
  strict,
);

export const EventsQuery = Type.Object(
  {
    type: Type.Optional(Type.Union([...EVENT_TYPES, 'ping'].map((t) => Type.Literal(t)))),
    before: Type.Optional(InstantBefore),
    limit: Type.Optional(Limit),
  },
  strict,
);

export const consoleRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = portalCtx;

  // Reading the log first writes this process's buffer, so a request just made shows up at once.
  app.get('/request-log', { schema: { ...hidden, querystring: RequestLogQuery, response: { 200: Page(LoggedRequest) } } }, async (req) => {
    await app.requestLog.flush();
    const { items, next_before } = await listRequests(ctx(req), { ...req.query, api_key_id: req.query.key_id });
    return { data: items, request_id: req.id, next_before };
  });
  app.get(
    '/request-log/:request_id',
    { schema: { ...hidden, params: Type.Object({ request_id: Uuid() }), response: { 200: Envelope(LoggedRequest) } } },
    async (req) => {
      await app.requestLog.flush();
      return { data: await getRequest(ctx(req), req.params.request_id), request_id: req.id };
    },
  );

  app.get('/events', { schema: { ...hidden, querystring: EventsQuery, response: { 200: Page(LoggedEvent) } } }, async (req) => {
    checkInstantBefore(req.query.before);
    const { items, next_before } = await recentEvents(ctx(req), req.query);
    return { data: items, request_id: req.id, next_before };
  });

  app.get('/overview', { schema: { ...hidden, response: { 200: Envelope(Overview) } } }, async (req) => {
    await app.requestLog.flush();
    const c = ctx(req);
    const [keys, endpoints, health, failing, failingTotal, requests] = await Promise.all([
      listApiKeys(c),
      listEndpoints(c),
      endpointHealth(c),
      failingDeliveries(c),
      failingCount(c),
      requestStats(c),
    ]);
    return {
      data: {
        keys: keys.filter((k) => !k.revoked_at),
        endpoints: endpoints.map((e) => ({ ...e, health: health.get(e.id) ?? emptyHealth() })),
        failing_deliveries: failing,
        failing_total: failingTotal,
        requests,
      },
      request_id: req.id,
    };
  });
};
