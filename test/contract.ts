// Every response the test harness sees, and every webhook the test receivers get, is checked
// against the published OpenAPI documents: the status is documented for the operation, the
// content type is the documented one, the body matches the schema (with no undocumented fields)
// and the required headers are there. Any drift between the server and its documents fails CI.
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { openApiDocuments } from '../scripts/openapi.ts';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

// The parts of an OpenAPI 3.1 document the checks read (a `$ref` stands in for any of them).
type JsonObject = { [key: string]: unknown };
type Ref = { $ref: string };
interface Media {
  schema: JsonObject;
}
interface HeaderObject {
  required?: boolean;
}
interface ResponseObject {
  headers?: Record<string, HeaderObject | Ref>;
  content?: Record<string, Media>;
}
interface Parameter {
  in: string;
  name: string;
  required?: boolean;
}
interface Operation {
  operationId?: string;
  responses: Record<string, ResponseObject | Ref>;
  parameters?: (Parameter | Ref)[];
  requestBody?: { content: Record<string, Media> };
}
interface Document {
  paths: Record<string, Record<string, Operation | undefined> | undefined>;
  components: Record<string, Record<string, unknown>>;
  webhooks?: Record<string, { post?: Operation } | undefined>;
}

const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

interface Contract {
  docs: Document[];
  ajv: Ajv2020;
  validators: Map<string, ValidateFunction>;
}

let contract: Promise<Contract> | null = null;
let loaded: Contract | null = null;

/** The published documents, loaded once per test process. */
function load(): Promise<Contract> {
  contract ??= (async () => {
    const { integration, platform } = await openApiDocuments();
    const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
    addFormats(ajv);
    const docs = [integration, platform].map((d: Document, i) => closeObjects(structuredClone(d), `doc${i}`));
    docs.forEach((d, i) => ajv.addSchema({ $id: `doc${i}`, components: d.components }, `doc${i}`));
    loaded = { docs, ajv, validators: new Map() };
    return loaded;
  })();
  return contract;
}

/**
 * For checking only: an object schema that lists its properties admits no others (responses must
 * not carry undocumented fields). `unevaluatedProperties` looks through allOf and $ref, so a part
 * of an allOf is left open and the schema holding the allOf is closed instead.
 */
function closeObjects(doc: Document, id: string): Document {
  const visit = (node: unknown, inAllOf: boolean): void => {
    if (Array.isArray(node)) return node.forEach((n) => visit(n, inAllOf));
    if (!isObject(node)) return;
    if (typeof node.$ref === 'string' && node.$ref.startsWith('#/')) node.$ref = `${id}${node.$ref}`;
    if (!inAllOf && (node.properties || node.allOf) && node.additionalProperties === undefined) node.unevaluatedProperties = false;
    for (const [k, v] of Object.entries(node)) visit(v, k === 'allOf');
  };
  visit(doc.components, false);
  for (const item of Object.values({ ...doc.paths, ...(doc.webhooks ?? {}) })) visit(item, false);
  return doc;
}

function validator(c: Contract, key: string, schema: JsonObject): ValidateFunction {
  let v = c.validators.get(key);
  if (!v) {
    v = c.ajv.compile(schema);
    c.validators.set(key, v);
  }
  return v;
}

/** A component a `$ref` points at (in this document), or the node itself. */
function deref<T>(doc: Document, node: T | Ref): T;
function deref<T>(doc: Document, node: T | Ref | undefined): T | undefined;
function deref<T>(doc: Document, node: T | Ref | undefined): T | undefined {
  const ref = isObject(node) && typeof node.$ref === 'string' ? node.$ref : null;
  const m = ref ? /#\/components\/(\w+)\/(.+)$/.exec(ref) : null;
  return m ? (doc.components[m[1]]?.[m[2]] as T | undefined) : (node as T | undefined);
}

/** The JSON schema of an operation's JSON request body in a published document, its `$ref` followed. */
export function requestBodySchema(doc: unknown, path: string, method: string): DocumentNode {
  const d = doc as Document & { paths: Record<string, Record<string, DocumentNode>> };
  const body = d.paths[path][method].requestBody as DocumentNode;
  return deref<DocumentNode>(d, body.content['application/json'].schema);
}

export interface ObservedResponse {
  method: string;
  /** The route's URL template as Fastify knows it (`/api/integrations/v1/orders/:id`). */
  route: string;
  status: number;
  headers: Record<string, unknown>;
  body: string;
}

/** The ways a response breaks its document, or [] when it keeps it (or is not a documented route). */
export async function responseViolations(r: ObservedResponse): Promise<string[]> {
  const c = await load();
  const path = r.route.replace(/:(\w+)/g, '{$1}');
  const docIndex = c.docs.findIndex((d) => d.paths[path]);
  if (docIndex < 0) return [];
  const doc = c.docs[docIndex];
  const where = `${r.method} ${path} → ${r.status}`;
  const op = doc.paths[path]?.[r.method.toLowerCase()];
  if (!op) return [];
  const response = deref(doc, op.responses[String(r.status)] ?? op.responses.default);
  if (!response) return [`${where}: status ${r.status} is not documented (documented: ${Object.keys(op.responses).join(', ')})`];
  const out: string[] = [];
  for (const [name, h] of Object.entries(response.headers ?? {})) {
    if (deref(doc, h).required && r.headers[name.toLowerCase()] === undefined) out.push(`${where}: required header ${name} is missing`);
  }
  const media = Object.keys(response.content ?? {});
  if (media.length === 0) return out;
  const type = String(r.headers['content-type'] ?? '')
    .split(';')[0]
    .trim();
  if (!media.includes(type)) return [...out, `${where}: content type ${type || '(none)'} is not the documented ${media.join(' or ')}`];
  let body: unknown;
  try {
    body = JSON.parse(r.body);
  } catch {
    return [...out, `${where}: the body is not JSON`];
  }
  const validate = validator(c, `${docIndex} ${where} ${type}`, { ...response.content?.[type].schema, $schema: undefined });
  if (!validate(body)) out.push(`${where}: the body does not match the document: ${c.ajv.errorsText(validate.errors, { separator: '; ' })}`);
  return out;
}

/** The ways a delivered webhook breaks the document's `webhooks` entry for its event type. */
export async function webhookViolations(headers: Record<string, unknown>, raw: string): Promise<string[]> {
  const c = await load();
  const doc = c.docs[0];
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch {
    return ['webhook: the body is not JSON'];
  }
  const type = isObject(body) ? String(body.type) : String(body);
  const op = doc.webhooks?.[type]?.post;
  const schema = op?.requestBody?.content['application/json']?.schema;
  if (!op || !schema) return [`webhook: event type ${type} is not in the document's webhooks`];
  const out: string[] = [];
  for (const p of op.parameters ?? []) {
    const param = deref(doc, p);
    if (param.in === 'header' && param.required && headers[param.name.toLowerCase()] === undefined)
      out.push(`webhook ${type}: header ${param.name} is missing`);
  }
  const validate = validator(c, `webhook ${type}`, schema);
  if (!validate(body)) out.push(`webhook ${type}: the body does not match the document: ${c.ajv.errorsText(validate.errors, { separator: '; ' })}`);
  return out;
}

/**
 * The operationId of a route (`GET /api/integrations/v1/orders/:id` → `getOrder`) and the statuses
 * its document lists, or null for a route no document describes (portal, health, documents).
 * Synchronous: call it after `preloadContract()` (startTestApp does).
 */
export function operationOf(method: string, route: string): { operationId: string; statuses: number[] } | null {
  if (!loaded) throw new Error('operationOf() before preloadContract()');
  const path = route.replace(/:(\w+)/g, '{$1}');
  for (const doc of loaded.docs) {
    const op = doc.paths[path]?.[method.toLowerCase()];
    if (op?.operationId)
      return {
        operationId: op.operationId,
        statuses: Object.keys(op.responses)
          .filter((k) => /^\d+$/.test(k))
          .map(Number),
      };
  }
  return null;
}

/** The statuses an operation's document lists (empty for an unknown operationId). */
export function statusesOf(operationId: string): number[] {
  if (!loaded) throw new Error('statusesOf() before preloadContract()');
  for (const doc of loaded.docs)
    for (const item of Object.values(doc.paths))
      for (const op of Object.values(item ?? {}))
        if (op?.operationId === operationId)
          return Object.keys(op.responses)
            .filter((k) => /^\d+$/.test(k))
            .map(Number);
  return [];
}

/** Load the documents ahead of the first check (so a check adds no delay to a test's timing). */
export const preloadContract = () => load().then(() => undefined);

/**
 * How tests read a published document (GET …/openapi.json) when they assert its structure: every
 * node as a JSON Schema or operation object with the fields tests look at. Reading a field the node
 * lacks gives undefined at run time, and the assertion on it fails.
 */
export interface DocumentNode {
  $ref?: string;
  type?: string | string[];
  enum: string[];
  operationId: string;
  name: string;
  parameters: DocumentNode[];
  responses: Record<string, DocumentNode>;
  content: Record<string, DocumentNode>;
  schema: DocumentNode;
  properties: Record<string, DocumentNode>;
  items: DocumentNode;
  anyOf: DocumentNode[];
  oneOf: DocumentNode[];
  discriminator: { propertyName: string; mapping: Record<string, string> };
  [key: string]: unknown;
}
export interface DocumentShape {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, Record<string, DocumentNode>>;
  components: { schemas: Record<string, DocumentNode> };
  webhooks: Record<string, { post: DocumentNode }>;
}
