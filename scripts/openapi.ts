// Writes the published OpenAPI documents: the integration API's (as served at
// /api/integrations/v1/openapi.json) and, with --platform, the operator API's.
import fs from 'node:fs';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { postgresDatabase } from '../src/db/database.ts';

export async function openApiDocuments() {
  // Building routes needs no database connection: the pool only connects on a first query.
  const handle = postgresDatabase('postgres://unused@127.0.0.1:1/unused');
  const app = await buildApp({ db: handle.db, config: { ...loadConfig({}), logLevel: 'silent' }, secret: 'unused', logger: false });
  await app.ready();
  const docs = app.openApiDocuments();
  await app.close();
  return docs;
}

export async function openApiDocument() {
  return (await openApiDocuments()).integration;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const platform = process.argv.includes('--platform');
  const out = process.argv.slice(2).find((a) => !a.startsWith('--')) ?? 'openapi.json';
  const docs = await openApiDocuments();
  fs.writeFileSync(out, JSON.stringify(platform ? docs.platform : docs.integration, null, 2));
  console.log(`wrote ${out}`);
}
