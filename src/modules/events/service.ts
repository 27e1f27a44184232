// The event feed: the merchant's events in commit order, as the key may see them.
import { EVENT_TYPES, type EventType } from '../../events/outbox.ts';
import { decodePosition, eventEnvelope, type EventEnvelope } from '../../events/envelope.ts';
import { canSeeLocation } from '../../db/scope.ts';
import type { Ctx } from '../../http/context.ts';
import { AppError, invalid, notFound } from '../../http/errors.ts';
import { badCursor } from '../../http/paging.ts';
import { positionState, selectEvent, selectFeedPage } from './queries.ts';

/** The read scope an event type needs: the one that reads its resource. */
export const EVENT_READ_SCOPE: Record<EventType, string> = {
  'order.created': 'orders.read',
  'order.updated': 'orders.read',
  'order.cancelled': 'orders.read',
  'fulfillment.created': 'fulfillments.read',
  'fulfillment.updated': 'fulfillments.read',
  'inventory.updated': 'inventory.read',
  'product.created': 'products.read',
  'product.updated': 'products.read',
  'collection.created': 'collections.read',
  'collection.updated': 'collections.read',
  'social_video.created': 'social_videos.read',
  'social_video.updated': 'social_videos.read',
};

export interface FeedCtx extends Ctx {
  scopes: ReadonlySet<string>;
}

export interface FeedQuery {
  /** Comma-separated event types, as given. */
  types?: string;
  /** Position to start after (exclusive), from `after` or the cursor. */
  after: string | null;
  /** The position came from a cursor rather than `after`. */
  fromCursor: boolean;
  limit: number;
  retentionDays: number;
}

/**
 * The types this page may return: those asked for (each needs its read scope, else 403 naming
 * it), or every type the key can read (at least one, else 403). Null means all of them.
 */
function visibleTypes(ctx: FeedCtx, types: string | undefined): string[] | null {
  const readable = EVENT_TYPES.filter((t) => ctx.scopes.has(EVENT_READ_SCOPE[t]));
  if (types === undefined) {
    if (readable.length === 0) {
      throw new AppError('insufficient_scope', `The event feed needs at least one read scope: ${[...new Set(Object.values(EVENT_READ_SCOPE))].join(', ')}.`);
    }
    return readable.length === EVENT_TYPES.length ? null : readable;
  }
  const asked = [...new Set(types.split(','))];
  const unknown = asked.filter((t) => !(EVENT_TYPES as readonly string[]).includes(t));
  if (unknown.length) throw invalid('/types', `unknown event type "${unknown[0]}"; known: ${EVENT_TYPES.join(', ')}`, 'invalid_value');
  for (const t of asked as EventType[]) {
    const scope = EVENT_READ_SCOPE[t];
    if (!ctx.scopes.has(scope)) throw new AppError('insufficient_scope', `Events of type "${t}" need the scope "${scope}".`);
  }
  return asked;
}

export async function listEvents(ctx: FeedCtx, query: FeedQuery): Promise<{ items: EventEnvelope[]; more: boolean }> {
  const types = visibleTypes(ctx, query.types);
  const after = query.after === null ? null : decodePosition(query.after);
  if (query.after !== null) {
    const state = after ? await positionState(ctx.db, ctx, after, query.retentionDays) : 'unknown';
    if (state === 'expired') {
      throw new AppError(
        'cursor_expired',
        `This position is older than the ${query.retentionDays} days the feed keeps events: backfill from the lists, then follow the feed from its start.`,
      );
    }
    if (state === 'unknown') {
      if (query.fromCursor) throw badCursor();
      throw invalid('/after', 'no event of this merchant has this position', 'unknown_id');
    }
  }
  const rows = await selectFeedPage(ctx.db, ctx, types, after, query.limit + 1, query.retentionDays);
  return { items: rows.slice(0, query.limit).map((e) => eventEnvelope(e, ctx.locationIds)), more: rows.length > query.limit };
}

/** One event, as the feed shows it; one the key may not see (type, location, ping) is not found. */
export async function getEvent(ctx: FeedCtx, id: string): Promise<EventEnvelope> {
  const event = await selectEvent(ctx.db, ctx, id);
  const scope = event ? EVENT_READ_SCOPE[event.type as EventType] : undefined;
  if (!event || !scope || !ctx.scopes.has(scope)) throw notFound('event');
  if (event.location_id !== null && !canSeeLocation(ctx, event.location_id)) throw notFound('event');
  return eventEnvelope(event, ctx.locationIds);
}
