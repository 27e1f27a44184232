// The SDK as a package: what `npm pack` would publish, no runtime dependency, and an operation
// table that is the app's current OpenAPI document (a stale or hand-edited build fails here).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { OPERATIONS } from 'merchant-integration-sdk';
import { openApiDocument } from '../../../scripts/openapi.ts';

const root = path.resolve(import.meta.dirname, '..');

describe('package', () => {
  it('publishes dist/ (ES modules + declarations), the README and package.json, and depends on nothing', () => {
    const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    const [packed] = JSON.parse(out) as [{ name: string; files: { path: string }[] }];
    const files = packed.files.map((f) => f.path).sort();
    expect(packed.name).toBe('merchant-integration-sdk');
    expect(files.filter((f) => !f.startsWith('dist/'))).toEqual(['README.md', 'package.json']);
    for (const name of ['index', 'client', 'errors', 'types', 'webhooks', 'generated/openapi', 'generated/operations', 'generated/schemas']) {
      expect(files).toContain(`dist/${name}.js`);
      expect(files).toContain(`dist/${name}.d.ts`);
    }
    const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
    expect(pkg.dependencies).toBeUndefined();
    expect(pkg.exports['.']).toEqual({ types: './dist/index.d.ts', default: './dist/index.js' });
  });

  it("has one method per operation of the app's document, and Idempotency-Key on every write", async () => {
    const doc = (await openApiDocument()) as { paths: Record<string, Record<string, { operationId: string }>> };
    const ids = Object.values(doc.paths).flatMap((item) => Object.values(item).map((op) => op.operationId));
    expect(Object.keys(OPERATIONS).sort()).toEqual(ids.sort());
    expect(
      Object.entries(OPERATIONS)
        .filter(([, op]) => op.idempotent)
        .map(([id]) => id)
        .sort(),
    ).toEqual([
      'adjustInventory',
      'attachTracking',
      'createCollection',
      'createFulfillment',
      'createProduct',
      'createSocialVideo',
      'updateCollection',
      'updateProduct',
      'updateSocialVideo',
    ]);
    expect(Object.values(OPERATIONS).filter((op) => op.method !== 'GET' && !op.idempotent)).toEqual([]);
    expect(OPERATIONS.attachTracking).toMatchObject({
      method: 'POST',
      path: '/api/integrations/v1/fulfillments/{id}/tracking',
      pathParams: ['id'],
      body: true,
      list: false,
    });
    expect(OPERATIONS.listOrders.list).toBe(true);
  });
});
