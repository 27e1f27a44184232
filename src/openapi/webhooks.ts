// The `webhooks` section of the integration document: one entry per event type, with the signed
// envelope, the resource it carries (the same schema the API answers with) and the headers.
import { EVENT_TYPES } from '../events/outbox.ts';
import { EVENT_CATALOG, eventComponentName as componentName, eventEnvelopeSchema as eventEnvelope } from '../modules/events/schemas.ts';

const header = (name: string, description: string, schema: object = { type: 'string' }) => ({ name, in: 'header', required: true, description, schema });

const SIGNATURE_HEADERS = [
  header('X-Service-Webhook-Id', 'The event id, for de-duplication.', { type: 'string', format: 'uuid' }),
  header('X-Service-Webhook-Timestamp', 'Unix seconds when this attempt was signed; reject old ones (e.g. more than 5 minutes).', {
    type: 'string',
    pattern: '^[0-9]+$',
  }),
  header('X-Service-Webhook-Event', 'The event type.'),
  header('X-Service-Webhook-Position', "The event's position in the event feed (also `position` in the body): compare it with the last position you synced.", {
    type: 'string',
    pattern: '^[0-9a-f]{32}$',
  }),
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
          // The event's schema name, lower-cased first ("orderCreatedEvent"): generators add their
          // own "Webhook" to it ("…EventWebhookWebhookPayload" when the id ended in Webhook too).
          operationId: `${componentName(type)[0].toLowerCase()}${componentName(type).slice(1)}`,
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
