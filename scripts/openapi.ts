// Writes the integration API's OpenAPI document (as served at /api/integrations/v1/openapi.json).
import fs from 'node:fs';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { postgresDatabase } from '../src/db/database.ts';

export async function openApiDocument(): Promise<unknown> {
  // Building routes needs no database connection: the pool only connects on a first query.
  const handle = postgresDatabase('postgres://unused@127.0.0.1:1/unused');
  const app = await buildApp({ db: handle.db, config: { ...loadConfig({}), logLevel: 'silent' }, secret: 'unused', logger: false });
  await app.ready();
  const doc = app.swagger();
  await app.close();
  return doc;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const out = process.argv[2] ?? 'openapi.json';
  fs.writeFileSync(out, JSON.stringify(await openApiDocument(), null, 2));
  console.log(`wrote ${out}`);
}
