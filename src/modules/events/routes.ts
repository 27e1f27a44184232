// GET /events (the feed, in commit order) and GET /events/:id.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type, type Static } from 'typebox';
import type { EventEnvelope } from '../../events/envelope.ts';
import { ctxOf } from '../../http/context.ts';
import { invalid } from '../../http/errors.ts';
import { DEFAULT_LIMIT, PageQuery, positionCursor } from '../../http/paging.ts';
import { Enum, GET_ERRORS, IdParams, LIST_ERRORS, Many, One, problems } from '../../http/schemas.ts';
import { EVENT_TYPES } from '../../events/outbox.ts';
import { EventPosition, FeedEvent } from './schemas.ts';
import { getEvent, listEvents, type FeedCtx } from './service.ts';

const ListQuery = Type.Object(
  {
    after: Type.Optional({ ...EventPosition, description: 'Only events after this position (exclusive): the last position you processed.' }),
    cursor: Type.Optional(PageQuery.cursor),
    limit: Type.Optional(PageQuery.limit),
    types: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 1000,
        description:
          'Event types, comma-separated (`types=order.created,inventory.updated`) or the parameter repeated (`types=order.created&types=inventory.updated`); each needs its read scope.',
        // Published as an array of event types sent comma-separated (style form, explode false).
        'x-comma-separated': Enum(EVENT_TYPES),
      }),
    ),
  },
  { additionalProperties: false },
);

// Items are the stored webhook bodies: sent as they are, like deliveries, not re-shaped.
const asStored = () => (data: unknown) => JSON.stringify(data);
// The stored object was made by its resource's own presenter when the event was raised; the
// schema documents that shape, the type system cannot see it through the JSON column.
const asEvent = (e: EventEnvelope) => e as unknown as Static<typeof FeedEvent>;

const feedCtx = (req: FastifyRequest): FeedCtx => ({ ...ctxOf(req), scopes: req.auth!.scopes });

const routes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/events',
    {
      serializerCompiler: asStored,
      // The document publishes `types` comma-separated (style form, explode false), but many
      // generated clients send an array parameter repeated whatever the document says: both are
      // one list here, before validation.
      preValidation: (req, _reply, done) => {
        const query = req.query as { types?: string | string[] };
        if (Array.isArray(query.types)) query.types = query.types.join(',');
        done();
      },
      schema: {
        operationId: 'listEvents',
        tags: ['Events'],
        summary: 'Follow the event feed',
        description:
          "The merchant's events in commit order, each the webhook body plus an opaque `position`. Ask with `after` = the last position you processed: " +
          'you get every later event exactly once, in order, whatever commits concurrently (the feed may lag behind the longest transaction in flight; it never skips). ' +
          'Each event type needs the read scope of its resource (`orders.read` for `order.*`, `inventory.read` for `inventory.updated`, …); a location-restricted key sees ' +
          'location-bound events of its locations only, and product payloads narrowed to them. A position older than the retention (30 days by default) answers 410 `cursor_expired`.',
        querystring: ListQuery,
        response: { 200: Many(FeedEvent, 'A page of events in feed order.'), ...problems(...LIST_ERRORS, 'cursor_expired') },
      },
    },
    async (req) => {
      if (req.query.after !== undefined && req.query.cursor !== undefined) throw invalid('/cursor', 'give either after or cursor, not both', 'invalid_value');
      const { types, cursor, limit = DEFAULT_LIMIT } = req.query;
      // The cursor is bound to the set of types asked for, however they were written.
      const typeSet = types === undefined ? undefined : [...new Set(types.split(','))].sort().join(',');
      const paging = positionCursor(app.secret, '/events', { types: typeSet, cursor });
      const after = paging.position ?? req.query.after ?? null;
      const { items, more } = await listEvents(feedCtx(req), {
        types,
        after,
        fromCursor: paging.position !== null,
        limit,
        retentionDays: app.config.eventRetentionDays,
      });
      return { data: items.map(asEvent), request_id: req.id, meta: { limit, next_cursor: more ? paging.next(items[items.length - 1].position) : null } };
    },
  );

  app.get(
    '/events/:id',
    {
      serializerCompiler: asStored,
      schema: {
        operationId: 'getEvent',
        tags: ['Events'],
        summary: 'Get an event',
        description: "One event as the feed shows it. An event this key may not see (its type's read scope, its location) is 404.",
        params: IdParams,
        response: { 200: One(FeedEvent, 'The event.'), ...problems(...GET_ERRORS) },
      },
    },
    async (req) => ({ data: asEvent(await getEvent(feedCtx(req), req.params.id)), request_id: req.id }),
  );
};

export default routes;
