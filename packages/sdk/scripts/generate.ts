// Generates the SDK's types and operation table from the integration API's OpenAPI document.
//
//   node scripts/generate.ts                  document built from the app in this repository
//   node scripts/generate.ts --from doc.json  a saved document (e.g. fetched from /openapi.json)
//
// Writes src/generated/openapi.ts (openapi-typescript: paths, operations, components, webhooks)
// and src/generated/operations.ts (one row per operationId: method, path, parameters, whether it
// takes Idempotency-Key, whether it is a cursor list; friendly aliases for every named schema; the
// error codes; the webhook event union). Both files are build output, never edited or committed.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Obj = { [k: string]: Json };

const here = path.dirname(fileURLToPath(import.meta.url));
const outDir = path.resolve(here, '../src/generated');

async function loadDocument(): Promise<Obj> {
  const i = process.argv.indexOf('--from');
  if (i > 0) return JSON.parse(fs.readFileSync(process.argv[i + 1], 'utf8'));
  const { openApiDocument } = await import('../../../scripts/openapi.ts');
  // The app's document may share object identities between places; a JSON round trip makes it a tree.
  return JSON.parse(JSON.stringify(await openApiDocument()));
}

const isObj = (v: Json | undefined): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function resolve(doc: Obj, v: Json | undefined): Json | undefined {
  let cur = v;
  for (let depth = 0; isObj(cur) && typeof cur.$ref === 'string' && depth < 20; depth++) {
    const parts = cur.$ref
      .replace(/^#\//, '')
      .split('/')
      .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
    let next: Json | undefined = doc;
    for (const p of parts) next = isObj(next) ? next[p] : undefined;
    cur = next;
  }
  return cur;
}

/** Every `code` value a problem schema can carry (enum or const), searched through refs and combinators. */
function problemCodes(doc: Obj, schema: Json | undefined, out: Set<string>, seen = new Set<Json>()) {
  const s = resolve(doc, schema);
  if (!isObj(s) || seen.has(s)) return;
  seen.add(s);
  const code = resolve(doc, isObj(s.properties) ? s.properties.code : undefined);
  if (isObj(code)) {
    if (Array.isArray(code.enum)) for (const c of code.enum) if (typeof c === 'string') out.add(c);
    if (typeof code.const === 'string') out.add(code.const);
    for (const k of ['anyOf', 'oneOf'] as const) {
      const alts = code[k];
      if (Array.isArray(alts)) for (const a of alts) problemCodes(doc, { properties: { code: a } }, out, seen);
    }
  }
  for (const k of ['allOf', 'anyOf', 'oneOf'] as const) {
    const alts = s[k];
    if (Array.isArray(alts)) for (const a of alts) problemCodes(doc, a, out, seen);
  }
}

interface OperationRow {
  method: string;
  path: string;
  pathParams: string[];
  queryParams: string[];
  body: boolean;
  idempotent: boolean;
  list: boolean;
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
// Names the SDK exports itself (src/index.ts); a schema with one of them is reached through it.
const RESERVED = new Set([
  'Order',
  'Fulfillment',
  'InventoryRow',
  'Product',
  'Collection',
  'SocialVideo',
  'Location',
  'PingObject',
  'Problem',
  'AnyErrorCode',
  'Named',
  'HeaderBag',
  'VerifyOptions',
  'WebhookEventType',
  'VerificationFailure',
  'CallOptions',
  'ClientOptions',
  'ResponseInfo',
  'RetryOptions',
  'ListOperationId',
  'Operations',
  'Pagination',
  'FeedEvent',
  'FeedOptions',
  'EventFeed',
  'FeedItem',
  'FieldError',
  'ApiError',
  'NetworkError',
  'Client',
  'WebhookEvent',
  'EventEnvelope',
  'Input',
  'Response',
  'Data',
  'ListItem',
  'OperationId',
  'ErrorCode',
  'PathParams',
  'QueryParams',
  'RequestBody',
]);
const identifier = (name: string) => name.replace(/[^A-Za-z0-9_$]/g, '_').replace(/^(\d)/, '_$1');

function build(doc: Obj) {
  // A relative server URL ("/api/integrations/v1") is a prefix of every path; the client's baseUrl is the origin.
  const servers = Array.isArray(doc.servers) ? doc.servers : [];
  const server = isObj(servers[0]) && typeof servers[0].url === 'string' ? servers[0].url : '/';
  const prefix = server.startsWith('/') ? server.replace(/\/$/, '') : '';

  const operations: Record<string, OperationRow> = {};
  const codes = new Set<string>();
  const paths = isObj(doc.paths) ? doc.paths : {};
  for (const [p, item] of Object.entries(paths)) {
    if (!isObj(item)) continue;
    const shared = Array.isArray(item.parameters) ? item.parameters : [];
    for (const method of METHODS) {
      const op = item[method];
      if (!isObj(op)) continue;
      if (typeof op.operationId !== 'string')
        throw new Error(`${method.toUpperCase()} ${p} has no operationId: every operation needs one to become an SDK method`);
      const params = [...shared, ...(Array.isArray(op.parameters) ? op.parameters : [])].map((x) => resolve(doc, x)).filter(isObj);
      const names = (where: string) => params.filter((x) => x.in === where && typeof x.name === 'string').map((x) => String(x.name));
      const responses = isObj(op.responses) ? op.responses : {};
      let list = false;
      for (const [status, r] of Object.entries(responses)) {
        const res = resolve(doc, r);
        const content = isObj(res) && isObj(res.content) ? res.content : {};
        for (const media of Object.values(content)) {
          const schema = resolve(doc, isObj(media) ? media.schema : undefined);
          if (status.startsWith('2')) {
            const meta = isObj(schema) && isObj(schema.properties) ? resolve(doc, schema.properties.meta) : undefined;
            if (isObj(meta) && isObj(meta.properties) && 'next_cursor' in meta.properties) list = true;
          } else {
            problemCodes(doc, schema, codes);
          }
        }
      }
      if (operations[op.operationId]) throw new Error(`operationId ${op.operationId} is used twice`);
      operations[op.operationId] = {
        method: method.toUpperCase(),
        path: prefix + p,
        pathParams: names('path'),
        queryParams: names('query'),
        body: op.requestBody !== undefined,
        idempotent: names('header').some((n) => n.toLowerCase() === 'idempotency-key'),
        list: list && names('query').includes('cursor'),
      };
    }
  }

  const schemas = isObj(doc.components) && isObj(doc.components.schemas) ? Object.keys(doc.components.schemas) : [];
  const webhooks = isObj(doc.webhooks) ? Object.entries(doc.webhooks) : [];

  const lines: string[] = [];
  lines.push('// Generated by scripts/generate.ts from the OpenAPI document. Do not edit.');
  lines.push("import type { operations } from './openapi.js';");
  lines.push('');
  lines.push(`export const DOCUMENT_VERSION = ${JSON.stringify(isObj(doc.info) ? (doc.info.version ?? null) : null)};`);
  lines.push('');
  lines.push('/** Every operation of the document, keyed by operationId. */');
  lines.push(`export const OPERATIONS = ${JSON.stringify(operations, null, 2)} as const;`);
  lines.push('');
  lines.push('export type OperationId = keyof typeof OPERATIONS & keyof operations;');
  lines.push('');
  lines.push('/** Every problem `code` the document declares (plain string until it declares enums). */');
  lines.push(
    `export type ErrorCode = ${
      codes.size
        ? [...codes]
            .sort()
            .map((c) => JSON.stringify(c))
            .join(' | ')
        : 'string'
    };`,
  );
  lines.push('');
  lines.push("/** Event types of the document's `webhooks` section (empty until it has one). */");
  lines.push(`export const WEBHOOK_EVENT_TYPES = ${JSON.stringify(webhooks.map(([name]) => name))} as const;`);
  lines.push(`export const HAS_WEBHOOKS_SECTION = ${webhooks.length > 0};`);
  lines.push('export type _Operations = operations;');
  lines.push('');
  lines.push('/** An item of the event feed (GET /events, operation listEvents); without a feed, the webhook event with a position. */');
  lines.push(
    operations.listEvents
      ? "export type FeedItem = operations['listEvents']['responses'][200]['content']['application/json'] extends { data: (infer I)[] } ? I : never;"
      : "export type FeedItem = import('../webhooks.js').WebhookEvent & { position: string };",
  );

  // Friendly names for the document's named schemas, except those src/types.ts already exports
  // (they resolve to the same named schema there, with a fallback while the document has none).
  const aliases = ['// Generated by scripts/generate.ts from the OpenAPI document. Do not edit.', "import type { components } from './openapi.js';", ''];
  if (schemas.length === 0) aliases.push('// (the document names no schemas yet)', 'export {};');
  for (const name of schemas) {
    if (RESERVED.has(identifier(name))) continue;
    aliases.push(`export type ${identifier(name)} = components['schemas'][${JSON.stringify(name)}];`);
  }
  return { text: lines.join('\n') + '\n', schemasText: aliases.join('\n') + '\n', operations, codes, schemas, webhooks: webhooks.map(([n]) => n) };
}

const doc = await loadDocument();
const ast = await openapiTS(doc as Parameters<typeof openapiTS>[0], { exportType: false, alphabetize: false });
const types = '// Generated by openapi-typescript (scripts/generate.ts) from the OpenAPI document. Do not edit.\n' + astToString(ast);
const table = build(doc);
fs.mkdirSync(outDir, { recursive: true });
fs.writeFileSync(path.join(outDir, 'openapi.ts'), types);
fs.writeFileSync(path.join(outDir, 'operations.ts'), table.text);
fs.writeFileSync(path.join(outDir, 'schemas.ts'), table.schemasText);
console.log(
  `sdk: generated ${Object.keys(table.operations).length} operations, ${table.schemas.length} named schemas, ${table.codes.size} error codes, ` +
    `${table.webhooks.length} webhook events; openapi.ts ${(Buffer.byteLength(types) / 1024).toFixed(0)} KiB`,
);
