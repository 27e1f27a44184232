// The `webhooks` section of the integration document: one entry per event type, with the signed
// envelope, the resource it carries (the same schema the API answers with) and the headers.
import { Type, type TSchema } from 'typebox';
import { EVENT_TYPES, type EventType } from '../events/outbox.ts';
import { Collection, Product, SocialVideo } from '../modules/catalog/schemas.ts';
import { FulfillmentSchema } from '../modules/fulfillments/routes.ts';
import { InventoryRowSchema } from '../modules/inventory/routes.ts';
import { OrderSchema } from '../modules/orders/routes.ts';
import { Enum, Timestamp, Uuid, component } from '../http/schemas.ts';

const Ping = component(
  'PingObject',
  Type.Object({ endpoint_id: Uuid('The endpoint being tested.'), message: Type.String() }),
);

/** What each event carries and whether it is bound to a fulfillment location. */
export const EVENT_CATALOG: Record<EventType | 'ping', { object: TSchema; located: boolean; summary: string }> = {
  'order.created': { object: OrderSchema, located: true, summary: 'An order was placed (its quantities are committed at its location).' },
  'order.updated': { object: OrderSchema, located: true, summary: 'An order changed after creation: fulfillment status, closing.' },
  'order.cancelled': { object: OrderSchema, located: true, summary: 'An order was cancelled: committed quantities are released, pending fulfillments cancelled.' },
  'fulfillment.created': { object: FulfillmentSchema, located: true, summary: 'A fulfillment was created.' },
  'fulfillment.updated': { object: FulfillmentSchema, located: true, summary: 'Tracking was attached or replaced, or the fulfillment was cancelled.' },
  'inventory.updated': { object: InventoryRowSchema, located: true, summary: 'An inventory row changed (one event per changed row).' },
  'product.created': { object: Product, located: false, summary: 'A product was created (natively or by a connected source).' },
  'product.updated': { object: Product, located: false, summary: 'A product changed (not for inventory changes: see inventory.updated).' },
  'collection.created': { object: Collection, located: false, summary: 'A collection was created.' },
  'collection.updated': { object: Collection, located: false, summary: 'A collection changed.' },
  'social_video.created': { object: SocialVideo, located: false, summary: 'A social video was created.' },
  'social_video.updated': { object: SocialVideo, located: false, summary: 'A social video changed.' },
  ping: { object: Ping, located: false, summary: 'Sent only by an endpoint\'s test action; never in the event feed.' },
};

const componentName = (type: string) =>
  `${type.split(/[._]/).map((w) => w[0].toUpperCase() + w.slice(1)).join('')}Event`;

/** The envelope of one event type (`#/components/schemas/OrderCreatedEvent`, …). */
export function eventEnvelope(type: EventType | 'ping') {
  const { object, located } = EVENT_CATALOG[type];
  return component(
    componentName(type),
    Type.Object({
      id: Uuid('The event id; also in X-Service-Webhook-Id. De-duplicate by it: delivery is at least once.'),
      type: Enum([type]),
      created_at: Timestamp(),
      merchant_id: Uuid(),
      location_id: located ? Uuid('The fulfillment location the event is bound to (endpoint location filters use it).') : Type.Null(),
      data: Type.Object({ object }, { description: 'The resource exactly as the API answers it (product inventory narrowed to the endpoint\'s locations).' }),
    }),
  );
}

const header = (name: string, description: string, schema: object = { type: 'string' }) => ({ name, in: 'header', required: true, description, schema });

const SIGNATURE_HEADERS = [
  header('X-Service-Webhook-Id', 'The event id, for de-duplication.', { type: 'string', format: 'uuid' }),
  header('X-Service-Webhook-Timestamp', 'Unix seconds when this attempt was signed; reject old ones (e.g. more than 5 minutes).', { type: 'string', pattern: '^[0-9]+$' }),
  header('X-Service-Webhook-Event', 'The event type.'),
  header(
    'X-Service-Webhook-Signature',
    '`v1=<hex>` where hex is HMAC-SHA256(signing secret, timestamp + "." + raw body). During a secret rotation both signatures are sent, space-separated: accept either.',
    { type: 'string', pattern: '^v1=[0-9a-f]{64}( v1=[0-9a-f]{64})*$' },
  ),
];

/** The `webhooks` map: event type → the POST the service sends to a subscribed endpoint. */
export function webhooksSection() {
  return Object.fromEntries(
    (['ping', ...EVENT_TYPES] as const).map((type) => [
      type,
      {
        post: {
          operationId: `${componentName(type)[0].toLowerCase()}${componentName(type).slice(1)}Webhook`,
          summary: type,
          description: `${EVENT_CATALOG[type].summary}${EVENT_CATALOG[type].located ? ' Reaches an endpoint only when `location_id` is in its location filter.' : ''}`,
          tags: ['Webhooks'],
          security: [],
          parameters: SIGNATURE_HEADERS,
          requestBody: { required: true, content: { 'application/json': { schema: eventEnvelope(type) } } },
          // Your endpoint's answer. One `default` entry: the API's own response rules (problem
          // details, X-Request-Id) are not asked of a receiver.
          responses: {
            default: {
              description:
                'Any 2xx within 10 s means delivered: answer fast and process later. `410 Gone` disables the endpoint (this delivery fails). Anything else, a redirect or no answer within 10 s is retried with exponential back-off over about three days.',
            },
          },
        },
      },
    ]),
  );
}
