// The published OpenAPI document as a product: the names generated clients use.
import { beforeAll, describe, expect, it } from 'vitest';
import { openApiDocument } from '../scripts/openapi.ts';

type Operation = { operationId?: string; summary?: string; responses: Record<string, { description: string }> };
let operations: [string, Operation][];

beforeAll(async () => {
  const doc = (await openApiDocument()) as { paths: Record<string, Record<string, Operation>> };
  operations = Object.entries(doc.paths).flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => [`${method.toUpperCase()} ${path}`, op] as [string, Operation]));
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
      'POST /inventory/adjustments': 'adjustInventory',
      'GET /social-videos': 'listSocialVideos',
      'GET /social-videos/{id}': 'getSocialVideo',
      'POST /social-videos': 'createSocialVideo',
      'PATCH /social-videos/{id}': 'updateSocialVideo',
      'GET /locations': 'listLocations',
      'GET /vendors': 'listVendors',
      'GET /tags': 'listTags',
      'GET /media-assets': 'listMediaAssets',
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
