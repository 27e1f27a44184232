// The event envelope as published: one component per event type (the webhook body, and with it
// the feed item), the resource each carries (the same schema the API answers with), and the feed
// position. The webhooks section of the OpenAPI document and GET /events both use these.
import { Type, type TSchema } from 'typebox';
import { POSITION_PATTERN } from '../../events/envelope.ts';
import { EVENT_TYPES, type EventType } from '../../events/outbox.ts';
import { Enum, Timestamp, Uuid, component } from '../../http/schemas.ts';
import { Collection, Product, SocialVideo } from '../catalog/schemas.ts';
import { FulfillmentSchema, OrderSchema } from '../orders/records/schemas.ts';
import { InventoryRowSchema } from '../inventory/schemas.ts';

const Ping = component('PingObject', Type.Object({ endpoint_id: Uuid('The endpoint being tested.'), message: Type.String() }));

/** What each event carries and whether it is bound to a fulfillment location. */
export const EVENT_CATALOG: Record<EventType | 'ping', { object: TSchema; located: boolean; summary: string }> = {
  'order.created': { object: OrderSchema, located: true, summary: 'An order was placed (its quantities are committed at its location).' },
  'order.updated': { object: OrderSchema, located: true, summary: 'An order changed after creation: fulfillment status, closing.' },
  'order.cancelled': {
    object: OrderSchema,
    located: true,
    summary: 'An order was cancelled: committed quantities are released, pending fulfillments cancelled.',
  },
  'fulfillment.created': { object: FulfillmentSchema, located: true, summary: 'A fulfillment was created.' },
  'fulfillment.updated': { object: FulfillmentSchema, located: true, summary: 'Tracking was attached or replaced, or the fulfillment was cancelled.' },
  'inventory.updated': { object: InventoryRowSchema, located: true, summary: 'An inventory row changed (one event per changed row).' },
  'product.created': { object: Product, located: false, summary: 'A product was created (natively or by a connected source).' },
  'product.updated': { object: Product, located: false, summary: 'A product changed (not for inventory changes: see inventory.updated).' },
  'collection.created': { object: Collection, located: false, summary: 'A collection was created.' },
  'collection.updated': { object: Collection, located: false, summary: 'A collection changed.' },
  'social_video.created': { object: SocialVideo, located: false, summary: 'A social video was created.' },
  'social_video.updated': { object: SocialVideo, located: false, summary: 'A social video changed.' },
  ping: { object: Ping, located: false, summary: "Sent only by an endpoint's test action; never in the event feed." },
};

export const eventComponentName = (type: string) =>
  `${type
    .split(/[._]/)
    .map((w) => w[0].toUpperCase() + w.slice(1))
    .join('')}Event`;

export const EventPosition = Type.String({
  pattern: POSITION_PATTERN,
  minLength: 32,
  maxLength: 32,
  description:
    "The event's place in the event feed (GET /events), also in X-Service-Webhook-Position. Opaque; positions increase, also as strings, in feed order.",
});

/** The envelope of one event type (`#/components/schemas/OrderCreatedEvent`, …). */
export function eventEnvelopeSchema(type: EventType | 'ping') {
  const { object, located } = EVENT_CATALOG[type];
  return component(
    eventComponentName(type),
    Type.Object({
      id: Uuid('The event id; also in X-Service-Webhook-Id. De-duplicate by it: delivery is at least once.'),
      type: Enum([type]),
      created_at: Timestamp(),
      merchant_id: Uuid(),
      location_id: located ? Uuid('The fulfillment location the event is bound to (endpoint location filters use it).') : Type.Null(),
      position: EventPosition,
      data: Type.Object({ object }, { description: "The resource exactly as the API answers it (product inventory narrowed to the reader's locations)." }),
    }),
  );
}

/** A feed item: any event but ping. */
export const FeedEvent = component(
  'Event',
  Type.Union(
    EVENT_TYPES.map((t) => eventEnvelopeSchema(t)),
    { description: 'An event as the feed and webhooks send it; `type` tells which resource `data.object` is.' },
  ),
);
