// The published OpenAPI document as a product: the names generated clients use.
import { beforeAll, describe, expect, it } from 'vitest';
import { openApiDocuments } from '../scripts/openapi.ts';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { postgresDatabase } from '../src/db/database.ts';
import { requestBodySchema, responseViolations, webhookViolations } from './contract.ts';

type Operation = { operationId?: string; summary?: string; responses: Record<string, { description: string; headers?: Record<string, unknown> }> };
type Paths = { paths: Record<string, Record<string, Operation>> };
/** The integration API's operations as "METHOD path" and the operation; platformOperations the same for the operator API. */
let operations: [string, Operation][];
let platformOperations: [string, Operation][];
const operationsOf = (doc: Paths) =>
  Object.entries(doc.paths).flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => [`${method.toUpperCase()} ${path}`, op] as [string, Operation]));

beforeAll(async () => {
  const docs = (await openApiDocuments()) as { integration: Paths; platform: Paths };
  operations = operationsOf(docs.integration);
  platformOperations = operationsOf(docs.platform);
});

describe('operations', () => {
  it('name every integration operation as the SDK calls it', () => {
    const ids = Object.fromEntries(operations.map(([route, op]) => [route.replace('/api/integrations/v1', ''), op.operationId]));
    expect(ids).toMatchObject({
      'GET /products': 'listProducts',
      'GET /products/{id}': 'getProduct',
      'POST /products': 'createProduct',
      'PATCH /products/{id}': 'updateProduct',
      'GET /collections': 'listCollections',
      'GET /collections/{id}': 'getCollection',
      'POST /collections': 'createCollection',
      'PATCH /collections/{id}': 'updateCollection',
      'GET /orders': 'listOrders',
      'GET /orders/{id}': 'getOrder',
      'GET /fulfillments': 'listFulfillments',
      'GET /fulfillments/{id}': 'getFulfillment',
      'POST /fulfillments': 'createFulfillment',
      'POST /fulfillments/{id}/tracking': 'attachTracking',
      'GET /inventory': 'listInventory',
      'GET /inventory/{id}': 'getInventoryRow',
      'POST /inventory/adjustments': 'adjustInventory',
      'GET /social-videos': 'listSocialVideos',
      'GET /social-videos/{id}': 'getSocialVideo',
      'POST /social-videos': 'createSocialVideo',
      'PATCH /social-videos/{id}': 'updateSocialVideo',
      'GET /locations': 'listLocations',
      'GET /locations/{id}': 'getLocation',
      'GET /vendors': 'listVendors',
      'GET /vendors/{id}': 'getVendor',
      'GET /tags': 'listTags',
      'GET /tags/{id}': 'getTag',
      'GET /media-assets': 'listMediaAssets',
      'GET /media-assets/{id}': 'getMediaAsset',
      'GET /events': 'listEvents',
      'GET /events/{id}': 'getEvent',
    });
    const all = operations.map(([, op]) => op.operationId);
    expect(new Set(all).size).toBe(all.length);
  });

  it('give every operation a summary and every success a description of its own', () => {
    for (const [route, op] of operations) {
      expect(op.summary, route).toMatch(/^[A-Z]/);
      for (const [status, response] of Object.entries(op.responses)) {
        if (status.startsWith('2')) expect(response.description, `${route} ${status}`).not.toBe('Default Response');
      }
    }
  });
});

describe('schemas for generators', () => {
  it('write a choice of values as one enum, never an anyOf of one-value enums (both documents)', async () => {
    const docs = await openApiDocuments();
    const unions: string[] = [];
    const walk = (node: unknown, at: string) => {
      if (!node || typeof node !== 'object') return;
      const members = (node as { anyOf?: { enum?: unknown[] }[] }).anyOf;
      if (members && members.length > 1 && members.every((m) => m.enum?.length === 1)) unions.push(at);
      for (const [k, v] of Object.entries(node)) walk(v, `${at}/${k}`);
    };
    walk(docs.integration, 'integration');
    walk(docs.platform, 'platform');
    expect(unions).toEqual([]);
    const kind = requestBodySchema(docs.platform, '/api/platform/v1/merchants/{merchant_id}/media-assets', 'post').properties.kind;
    expect(kind).toEqual({ type: 'string', enum: ['image', 'video'] });
  });

  it('a comma-separated filter is an array sent style form, unexploded; a status filter refers to the status enum', async () => {
    type Param = { name: string; schema: { type?: string; items?: { enum?: string[] }; $ref?: string }; style?: string; explode?: boolean };
    const params = (path: string) =>
      (operations.find(([route]) => route === `GET /api/integrations/v1${path}`)![1] as unknown as { parameters: Param[] }).parameters;
    const types = params('/events').find((p) => p.name === 'types')!;
    expect(types).toMatchObject({ style: 'form', explode: false, schema: { type: 'array', minItems: 1 } });
    expect(types.schema.items?.enum).toContain('inventory.updated');
    expect(types.schema.items?.enum).not.toContain('ping');
    expect(params('/orders').find((p) => p.name === 'status')!.schema).toEqual({ $ref: '#/components/schemas/OrderStatus' });
    expect(params('/fulfillments').find((p) => p.name === 'status')!.schema).toEqual({ $ref: '#/components/schemas/FulfillmentStatus' });
  });

  it('answers keep the enums their requests have: key scopes, endpoint events, a delivery event type', async () => {
    const schemas = (
      (await openApiDocuments()).platform as {
        components: { schemas: Record<string, { properties: Record<string, { items?: { enum?: string[] }; enum?: string[] }> }> };
      }
    ).components.schemas;
    expect(schemas.ApiKey.properties.scopes.items?.enum).toContain('fulfillments.tracking.write');
    expect(schemas.WebhookEndpoint.properties.events.items?.enum).toContain('inventory.updated');
    expect(schemas.WebhookEndpoint.properties.events.items?.enum).not.toContain('ping');
    expect(schemas.WebhookDelivery.properties.event_type.enum).toContain('ping');
  });

  it("the rows a client builds are named components, and request variants use the answers' enums (generators made one type per use)", async () => {
    type Node = { $ref?: string; properties?: Record<string, Node>; items?: Node; anyOf?: Node[] };
    const { schemas } = ((await openApiDocuments()).integration as { components: { schemas: Record<string, Node> } }).components;
    const items = (schema: string, field: string) => schemas[schema].properties![field].items;
    expect(items('CreateProductRequest', 'variants')).toEqual({ $ref: '#/components/schemas/NewVariant' });
    expect(items('UpdateProductRequest', 'variants')).toEqual({ $ref: '#/components/schemas/VariantUpdate' });
    expect(items('AdjustInventoryRequest', 'adjustments')).toEqual({ $ref: '#/components/schemas/InventoryAdjustment' });
    expect(items('CreateFulfillmentRequest', 'items')).toEqual({ $ref: '#/components/schemas/NewFulfillmentItem' });
    for (const variant of ['NewVariant', 'VariantUpdate', 'Variant']) {
      expect([variant, schemas[variant].properties!.inventory_policy, schemas[variant].properties!.weight_unit]).toEqual([
        variant,
        { $ref: '#/components/schemas/InventoryPolicy' },
        { $ref: '#/components/schemas/WeightUnit' },
      ]);
    }
  });
});

describe('webhooks', () => {
  it('are named after their event schema, so generators do not say "Webhook" twice', async () => {
    const docs = (await openApiDocuments()) as { integration: { webhooks: Record<string, { post: { operationId: string } }> } };
    const ids = Object.fromEntries(Object.entries(docs.integration.webhooks).map(([type, item]) => [type, item.post.operationId]));
    expect([ids['ping'], ids['order.created'], ids['inventory.updated'], ids['social_video.updated']]).toEqual([
      'pingEvent',
      'orderCreatedEvent',
      'inventoryUpdatedEvent',
      'socialVideoUpdatedEvent',
    ]);
  });
});

describe('problems', () => {
  it('are named per set of codes and referenced, never written inline per operation (both documents)', async () => {
    const docs = await openApiDocuments();
    for (const doc of [docs.integration, docs.platform] as { paths: unknown; components: { schemas: Record<string, { allOf?: unknown[] }> } }[]) {
      let inline = 0;
      const walk = (node: unknown) => {
        if (!node || typeof node !== 'object') return;
        const allOf = (node as { allOf?: { $ref?: string }[] }).allOf;
        if (allOf?.[0]?.$ref === '#/components/schemas/Problem') inline++;
        for (const v of Object.values(node)) walk(v);
      };
      walk(doc.paths);
      expect(inline).toBe(0);
      expect(doc.components.schemas.NotFoundProblem.allOf).toEqual([
        { $ref: '#/components/schemas/Problem' },
        { type: 'object', properties: { code: { type: 'string', enum: ['not_found'] } } },
      ]);
    }
    expect(Object.keys(docs.integration.components.schemas)).toContain('InsufficientScopeOrLocationForbiddenProblem');
  });
});

describe('request bodies', () => {
  it("are required, except the operator actions' (cancel, rotate-secret, test, resend), which may be left out", () => {
    const body = (route: string) => (platformOperations.find(([r]) => r === route)![1] as unknown as { requestBody: { required?: boolean } }).requestBody;
    expect(body('POST /api/platform/v1/merchants/{merchant_id}/orders/{order_id}/cancel').required).toBe(false);
    expect(body('POST /api/platform/v1/merchants/{merchant_id}/orders').required).toBe(true);
    const endpoint = '/api/platform/v1/merchants/{merchant_id}/webhook-endpoints/{endpoint_id}';
    for (const [action, component] of [
      ['rotate-secret', 'RotateWebhookSecretRequest'],
      ['test', 'TestWebhookEndpointRequest'],
      ['deliveries/{delivery_id}/resend', 'ResendWebhookDeliveryRequest'],
    ]) {
      expect(body(`POST ${endpoint}/${action}`)).toEqual({
        required: false,
        content: { 'application/json': { schema: { $ref: `#/components/schemas/${component}` } } },
      });
    }
  });
  it('an action may send only {}: its body is an empty object admitting no property', async () => {
    const { platform } = await openApiDocuments();
    for (const name of ['CancelOrderRequest', 'RotateWebhookSecretRequest', 'TestWebhookEndpointRequest', 'ResendWebhookDeliveryRequest']) {
      expect([name, platform.components.schemas[name]]).toEqual([name, { type: 'object', properties: {}, additionalProperties: false }]);
    }
  });
});

describe('creates', () => {
  it('list Location on every create whose record has a GET, and only there', () => {
    const located = platformOperations.filter(([, op]) => op.responses['201']?.headers?.Location).map(([route]) => route);
    expect(located.sort()).toEqual([
      'POST /api/platform/v1/merchants/{merchant_id}/api-keys',
      'POST /api/platform/v1/merchants/{merchant_id}/locations',
      'POST /api/platform/v1/merchants/{merchant_id}/media-assets',
      'POST /api/platform/v1/merchants/{merchant_id}/orders',
      'POST /api/platform/v1/merchants/{merchant_id}/tags',
      'POST /api/platform/v1/merchants/{merchant_id}/vendors',
      'POST /api/platform/v1/merchants/{merchant_id}/webhook-endpoints',
    ]);
    for (const [route, op] of operations) if (op.responses['201']) expect(op.responses['201'].headers?.Location, route).toBeDefined();
  });
});

describe('problems', () => {
  it('ValidationProblem declares its errors list, not only requires it (generators left it optional)', async () => {
    const docs = (await openApiDocuments()) as Record<'integration' | 'platform', { components: { schemas: Record<string, { allOf?: unknown[] }> } }>;
    for (const doc of [docs.integration, docs.platform]) {
      expect(doc.components.schemas.ValidationProblem.allOf?.[1]).toEqual({
        type: 'object',
        required: ['errors'],
        properties: {
          code: { type: 'string', enum: ['validation_failed'] },
          errors: {
            type: 'array',
            items: { $ref: '#/components/schemas/FieldError' },
            minItems: 1,
            maxItems: 100,
            description: 'One entry per offending field; at most 100, and then `detail` begins "More than 100 fields are invalid".',
          },
        },
      });
    }
  });
});

describe('idempotent writes', () => {
  it('promise Idempotent-Replayed on the answers that are stored: every one but 401, 403, 429 and 5xx', () => {
    const idempotent = operations.filter(([, op]) => ['createFulfillment', 'attachTracking', 'adjustInventory'].includes(op.operationId!));
    expect(idempotent).toHaveLength(3);
    for (const [route, op] of idempotent) {
      const replayed = Object.entries(op.responses)
        .filter(([, r]) => r.headers?.['Idempotent-Replayed'])
        .map(([status]) => status);
      expect([route, replayed.filter((s) => ['401', '403', '429'].includes(s) || s.startsWith('5'))]).toEqual([route, []]);
      expect([route, replayed.some((s) => s.startsWith('2')), ['400', '413', '415', '422'].every((s) => replayed.includes(s))]).toEqual([route, true, true]);
    }
  });
});

describe('the harness holds every response to the document', () => {
  const order = {
    id: '0b0f5f7e-5d43-4a43-9b1e-2f4a3c7d9e10',
    order_number: 1001,
    status: 'open',
    fulfillment_status: 'unfulfilled',
    fulfillment_location_id: '1b0f5f7e-5d43-4a43-9b1e-2f4a3c7d9e10',
    currency: 'EUR',
    total_price: 10,
    customer: { name: null, email: null, phone: null },
    shipping_address: {
      name: null,
      company: null,
      address1: null,
      address2: null,
      city: null,
      province: null,
      postal_code: null,
      country_code: null,
      phone: null,
    },
    line_items: [],
    fulfillment_summary: { fulfilled_quantity: 0, total_quantity: 0, fulfillment_ids: [] },
    created_at: '2026-11-22T10:00:00.000Z',
    updated_at: '2026-11-22T10:00:00.000Z',
  };
  const requestId = '2b0f5f7e-5d43-4a43-9b1e-2f4a3c7d9e10';
  const answer = (status: number, body: unknown, headers: Record<string, string> = {}) =>
    responseViolations({
      method: 'GET',
      route: '/api/integrations/v1/orders/:id',
      status,
      headers: { 'content-type': 'application/json; charset=utf-8', 'x-request-id': requestId, ...headers },
      body: JSON.stringify(body),
    });

  it('accepts an answer that keeps the document', async () => {
    expect(await answer(200, { data: order, request_id: requestId })).toEqual([]);
  });

  it('names an undocumented status, a wrong content type, a missing header, an undocumented field and a wrong enum', async () => {
    expect(await answer(409, {})).toEqual([expect.stringContaining('status 409 is not documented')]);
    expect(await answer(404, { type: '/errors#not_found', title: 'Not found', status: 404, detail: 'x', code: 'not_found', request_id: requestId })).toEqual([
      expect.stringContaining('content type application/json is not the documented application/problem+json'),
    ]);
    expect(await answer(200, { data: order, request_id: requestId }, { 'x-request-id': undefined as never })).toEqual([
      expect.stringContaining('required header X-Request-Id is missing'),
    ]);
    expect(await answer(200, { data: { ...order, secret_field: 1 }, request_id: requestId })).toEqual([
      expect.stringContaining('must NOT have unevaluated properties'),
    ]);
    expect(await answer(200, { data: { ...order, status: 'shipped' }, request_id: requestId })).toEqual([
      expect.stringContaining('must be equal to one of the allowed values'),
    ]);
    const wrongCode = { type: '/errors#invalid_state', title: 'Invalid state', status: 404, detail: 'x', code: 'invalid_state', request_id: requestId };
    expect(await answer(404, wrongCode, { 'content-type': 'application/problem+json' })).toEqual([
      expect.stringContaining('/code must be equal to one of the allowed values'),
    ]);
  });

  it('checks delivered webhooks against their entry in webhooks', async () => {
    const position = '0000000000004f2a000000000009c41d';
    const headers = {
      'x-service-webhook-id': 'a',
      'x-service-webhook-timestamp': '1',
      'x-service-webhook-event': 'order.created',
      'x-service-webhook-position': position,
      'x-service-webhook-signature': 'v1=00',
    };
    const event = {
      id: requestId,
      type: 'order.created',
      created_at: '2026-11-22T10:00:00.000Z',
      merchant_id: requestId,
      location_id: requestId,
      position,
      data: { object: order },
    };
    expect(await webhookViolations(headers, JSON.stringify(event))).toEqual([]);
    expect(await webhookViolations(headers, JSON.stringify({ ...event, data: { object: { ...order, id: 7 } } }))).toEqual([
      expect.stringContaining('/data/object/id must be string'),
    ]);
    expect(await webhookViolations({}, JSON.stringify({ ...event, type: 'order.shipped' }))).toEqual([
      "webhook: event type order.shipped is not in the document's webhooks",
    ]);
  });
});

describe('the document builder', () => {
  it("names the deployment's absolute URL as the server when PUBLIC_BASE_URL is set, else this server", async () => {
    const serversOf = async (env: Record<string, string>) => {
      const app = await buildApp({
        db: postgresDatabase('postgres://unused@127.0.0.1:1/unused').db,
        config: { ...loadConfig(env), logLevel: 'silent' },
        secret: 'unused',
        logger: false,
      });
      await app.ready();
      try {
        const docs = app.openApiDocuments();
        return [docs.integration.servers, docs.platform.servers];
      } finally {
        await app.close();
      }
    };
    const deployed = [{ url: 'https://api.acme.test', description: 'This deployment (PUBLIC_BASE_URL)' }];
    expect(await serversOf({ PUBLIC_BASE_URL: 'https://api.acme.test/' })).toEqual([deployed, deployed]);
    const here = [{ url: '/', description: 'This server' }];
    expect(await serversOf({})).toEqual([here, here]);
  });

  it('refuses a documented route without a response schema or an operationId', async () => {
    const build = async (schema: Record<string, unknown>) => {
      const app = await buildApp({
        db: postgresDatabase('postgres://unused@127.0.0.1:1/unused').db,
        config: { ...loadConfig({}), logLevel: 'silent' },
        secret: 'unused',
        logger: false,
      });
      app.get('/api/integrations/v1/widgets', { schema }, async () => ({}));
      await app.ready();
      try {
        return app.openApiDocuments();
      } finally {
        await app.close();
      }
    };
    await expect(build({ operationId: 'listWidgets', summary: 'List widgets' })).rejects.toThrow('GET /api/integrations/v1/widgets has no response schema');
    await expect(build({ summary: 'List widgets', response: { 200: { type: 'object' } } })).rejects.toThrow(
      'GET /api/integrations/v1/widgets has no operationId',
    );
  });
});
