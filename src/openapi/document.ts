// Shapes the document @fastify/swagger generates from the route schemas into the two published
// ones: the integration API's and the operator API's. Named schemas become components and are
// referenced everywhere; errors become application/problem+json with the codes each operation
// can answer; every response header is documented; the Idempotency-Key parameter is shared.
import { ERROR_DESCRIPTIONS, type ErrorCode } from '../http/errors.ts';
import { Problem } from '../http/schemas.ts';

type Json = any;
export type OpenApiDocument = Json;

const ref = (kind: 'schemas' | 'headers' | 'parameters' | 'responses', name: string) => ({ $ref: `#/components/${kind}/${name}` });
const clone = <T>(v: T): T => structuredClone(v);

const HEADERS: Record<string, Json> = {
  'X-Request-Id': {
    description: "The request's id; equal to `request_id` in the body (an idempotent replay's body keeps the original one).",
    required: true,
    schema: { type: 'string', format: 'uuid' },
  },
  RateLimit: {
    description: 'Remaining requests and seconds until the window resets (IETF draft-10), e.g. `"default";r=599;t=60`.',
    schema: { type: 'string' },
  },
  'RateLimit-Policy': { description: 'The key\'s quota and window (IETF draft-10), e.g. `"default";q=600;w=60`.', schema: { type: 'string' } },
  'Retry-After': { description: 'Seconds to wait before retrying.', required: true, schema: { type: 'integer', minimum: 0 } },
  'Retry-After-Optional': { description: 'Seconds to wait before retrying; sent with `idempotency_in_progress`.', schema: { type: 'integer', minimum: 0 } },
  Location: { description: "The new record's URL (its GET).", required: true, schema: { type: 'string' } },
  'Idempotent-Replayed': {
    description: '`true` when this is the stored answer of an earlier request with the same Idempotency-Key; nothing was applied again.',
    schema: { type: 'string', enum: ['true'] },
  },
  'WWW-Authenticate': { description: 'The authentication scheme to use: `Bearer`.', required: true, schema: { type: 'string' } },
};

export const IDEMPOTENCY_KEY_PARAMETER = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    "Makes the write safe to retry: 1 to 255 printable ASCII characters (space to `~`), or the same in double quotes (the draft's structured-field form). Scoped to the merchant, method and path, and kept 48 h by default (never less than 24 h: a retry within a day always replays). The same key with the same body replays the stored answer with `Idempotent-Replayed: true`; with a different body it is 422 `idempotency_key_reused`; while the first request is still running it is 409 `idempotency_in_progress`. 401, 403, 429 and 5xx answers are not stored (nor a 400 for a malformed key); every other answer is, including those given before the body is read (400 for a body that is not JSON, 413, 415): the same bytes replay it, a corrected body needs a new key.",
  schema: { type: 'string', minLength: 1, maxLength: 257, pattern: '^(?:[\\x20-\\x7E]{1,255}|"[\\x20-\\x7E]{1,255}")$' },
  example: '3f1c9e0a-fulfil-order-1001',
};

/** Walks a generated schema, moving every `x-component` schema into `schemas` and referencing it. */
function hoist(node: Json, schemas: Record<string, Json>): Json {
  if (Array.isArray(node)) return node.map((n) => hoist(n, schemas));
  if (!node || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node)) out[k] = hoist(v, schemas);
  const name = out['x-component'];
  if (typeof name !== 'string') return out;
  delete out['x-component'];
  const { description, ...shape } = out;
  const known = schemas[name];
  if (!known) {
    schemas[name] = out;
  } else {
    const { description: knownDescription, ...knownShape } = known;
    if (JSON.stringify(knownShape) !== JSON.stringify(shape)) throw new Error(`Two different schemas are named ${name}`);
    if (knownDescription !== description) delete known.description;
  }
  return ref('schemas', name);
}

/** 'not_found' → 'NotFound', 'createProduct' → 'CreateProduct'. */
const pascal = (name: string) => name.replace(/(^|_)(\w)/g, (_m, _s, c: string) => c.toUpperCase());

/**
 * The problem an answer can be, its `code` narrowed to `codes`: a named component per set of codes
 * (`NotFoundProblem`, `InsufficientScopeOrLocationForbiddenProblem`), so a generator makes one
 * type per set instead of one per operation and status.
 */
function problemSchema(codes: ErrorCode[]): Json {
  if (codes.length === 1 && codes[0] === 'validation_failed') return ref('schemas', 'ValidationProblem');
  const sorted = [...codes].sort();
  return {
    'x-component': `${sorted.map(pascal).join('Or')}Problem`,
    allOf: [ref('schemas', 'Problem'), { type: 'object', properties: { code: { type: 'string', enum: sorted } } }],
  };
}

/** The error responses: problem+json, `code` narrowed to what the operation can answer. */
function shapeResponses(op: Json, idempotent: boolean, integration: boolean) {
  for (const [status, response] of Object.entries<Json>(op.responses ?? {})) {
    const code = Number(status);
    const media = response.content?.['application/json'];
    const codes: ErrorCode[] | undefined = media?.schema?.['x-problem'];
    if (codes) {
      response.content = { 'application/problem+json': { schema: problemSchema(codes) } };
      response.description = codes.map((c) => `\`${c}\`: ${ERROR_DESCRIPTIONS[c]}`).join(' ');
    }
    const headers: Json = { 'X-Request-Id': ref('headers', 'X-Request-Id') };
    if (integration) Object.assign(headers, { RateLimit: ref('headers', 'RateLimit'), 'RateLimit-Policy': ref('headers', 'RateLimit-Policy') });
    // Integration creates point at the new record's GET; operator creates do where the record has one (x-location).
    const located = media?.schema?.['x-location'] === true;
    if (located) delete media.schema['x-location'];
    if (code === 201 && (integration || located)) headers.Location = ref('headers', 'Location');
    // Every final answer but 401, 403, 429 and 5xx is stored (those given before the body is read too).
    if (idempotent && code < 500 && ![401, 403, 429].includes(code)) headers['Idempotent-Replayed'] = ref('headers', 'Idempotent-Replayed');
    if (code === 429 || code === 503) headers['Retry-After'] = ref('headers', 'Retry-After');
    if (codes?.includes('idempotency_in_progress')) headers['Retry-After'] = ref('headers', 'Retry-After-Optional');
    if (code === 401) headers['WWW-Authenticate'] = ref('headers', 'WWW-Authenticate');
    response.headers = headers;
  }
}

/**
 * What any request can be answered before it reaches its operation: Node refuses a URL (414) or
 * headers (431) over 16 KB and a request that does not arrive within REQUEST_TIMEOUT_MS (408), then
 * closes the connection. Every operation lists both, so a generated client knows them.
 */
const CONNECTION_RESPONSES: Record<string, Json> = {
  RequestTimeout: connectionResponse('request_timeout'),
  UriTooLong: connectionResponse('uri_too_long'),
  HeadersTooLarge: connectionResponse('headers_too_large'),
};

function connectionResponse(code: ErrorCode): Json {
  return {
    description: `\`${code}\`: ${ERROR_DESCRIPTIONS[code]}`,
    headers: { 'X-Request-Id': ref('headers', 'X-Request-Id') },
    content: { 'application/problem+json': { schema: problemSchema([code]) } },
  };
}

function shapeOperation(op: Json, options: { integration: boolean }) {
  let idempotent = false;
  op.parameters = (op.parameters ?? []).map((p: Json) => {
    if (p.in === 'header' && p.name.toLowerCase() === 'idempotency-key') {
      idempotent = true;
      return ref('parameters', 'IdempotencyKey');
    }
    return p;
  });
  if (op.parameters.length === 0) delete op.parameters;
  // A request body is a named component (`CreateProductRequest`), as generators would name it anyway,
  // so the name is stable and the document says it once.
  const body = op.requestBody?.content?.['application/json'];
  if (body?.schema?.['x-body-optional']) {
    const { 'x-body-optional': _optional, ...schema } = body.schema;
    body.schema = schema;
    op.requestBody.required = false;
  }
  if (body?.schema && !body.schema.$ref && !body.schema['x-component']) body.schema = { ...body.schema, 'x-component': `${pascal(op.operationId)}Request` };
  shapeResponses(op, idempotent, options.integration);
  op.responses['408'] = ref('responses', 'RequestTimeout');
  op.responses['414'] = ref('responses', 'UriTooLong');
  op.responses['431'] = ref('responses', 'HeadersTooLarge');
}

/** Every `$ref` target reachable from `root`, so a view keeps only the components it uses. */
function reachable(root: Json, components: Json): Json {
  const used: Record<string, Set<string>> = {};
  const visit = (node: Json) => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (!node || typeof node !== 'object') return;
    const target = typeof node.$ref === 'string' ? /^#\/components\/(\w+)\/(.+)$/.exec(node.$ref) : null;
    if (target) {
      const [, kind, name] = target;
      used[kind] ??= new Set();
      if (!used[kind].has(name)) {
        used[kind].add(name);
        visit(components[kind]?.[name]);
      }
    }
    for (const v of Object.values(node)) visit(v);
  };
  visit(root);
  const out: Json = {};
  for (const [kind, entries] of Object.entries<Json>(components)) {
    if (kind === 'securitySchemes') {
      out[kind] = entries;
      continue;
    }
    const names = [...(used[kind] ?? [])].sort();
    if (names.length) out[kind] = Object.fromEntries(names.map((n) => [n, entries[n]]));
  }
  return out;
}

export interface DocumentParts {
  /** The webhooks section of the integration document (paths-like: event type → post operation). */
  webhooks: Json;
  platformInfo: Json;
  platformTags: Json[];
}

/**
 * `anyOf` of one-value enums (what a TypeBox union of literals becomes) written as one `enum`: the
 * same values, but generators outside TypeScript make an enum of it rather than a wrapper class per
 * value.
 */
function literalUnionsAsEnums(node: Json): void {
  if (!node || typeof node !== 'object') return;
  for (const value of Object.values<Json>(node)) literalUnionsAsEnums(value);
  const members: Json[] | undefined = node.anyOf;
  if (!Array.isArray(members) || members.length < 2) return;
  const type = members[0]?.type;
  const single = (m: Json) => m && m.type === type && Array.isArray(m.enum) && m.enum.length === 1 && Object.keys(m).length === 2;
  if (typeof type !== 'string' || !members.every(single)) return;
  delete node.anyOf;
  node.type = type;
  node.enum = members.map((m) => m.enum[0]);
}

/**
 * A union whose members are objects told apart by a one-value `type` (the events) becomes a `oneOf`
 * with a discriminator, so generators that deserialize by class (Java, C#, Go, Python) pick the member
 * from `type` instead of trying each.
 */
function discriminateByType(schemas: Record<string, Json>): void {
  for (const schema of Object.values(schemas)) {
    const members: Json[] | undefined = schema.anyOf;
    if (!Array.isArray(members) || members.length < 2 || !members.every((m) => typeof m.$ref === 'string')) continue;
    const typeOf = (m: Json) => schemas[m.$ref.split('/').pop()]?.properties?.type?.enum;
    const types = members.map(typeOf);
    if (!types.every((t) => Array.isArray(t) && t.length === 1) || new Set(types.map((t) => t[0])).size !== types.length) continue;
    delete schema.anyOf;
    schema.oneOf = members;
    schema.discriminator = { propertyName: 'type', mapping: Object.fromEntries(members.map((m, i) => [types[i][0], m.$ref])) };
  }
}

/**
 * A query parameter as generators should see it: a comma-separated list (`x-comma-separated`: the
 * item's schema) is an array sent `style: form, explode: false` (`types=a,b`); an enum that a named
 * schema already states (`status` and `OrderStatus`) refers to it, so one enum type is generated.
 */
function shapeParameter(p: Json, schemas: Record<string, Json>): void {
  const items = p.schema?.['x-comma-separated'];
  if (items) {
    const { 'x-comma-separated': _items, ...text } = p.schema;
    p.schema = { type: 'array', items, minItems: 1, description: `Sent as one comma-separated value (at most ${text.maxLength} characters).` };
    Object.assign(p, { style: 'form', explode: false });
    return;
  }
  const values = p.schema?.enum;
  if (!Array.isArray(values) || p.schema.$ref) return;
  const same = Object.entries(schemas).find(([, s]) => s.type === p.schema.type && JSON.stringify(s.enum) === JSON.stringify(values));
  if (same) p.schema = ref('schemas', same[0]);
}

/**
 * Splits the generated document (integration and operator operations together) into the two
 * published ones, each with only the components it references.
 */
export function publishedDocuments(generated: Json, prefixes: { integration: string; platform: string }, parts: DocumentParts) {
  const schemas: Record<string, Json> = {};
  hoist({ ...clone(Problem), 'x-component': 'Problem' }, schemas);
  schemas.ValidationProblem = {
    description: 'A problem with `code` `validation_failed`: `errors[]` lists every offending field with a JSON pointer.',
    // `errors` is restated, not only required: generators that read `required` without a property
    // beside it left the list optional (three of four audited, 2026-11-24).
    allOf: [
      ref('schemas', 'Problem'),
      {
        type: 'object',
        required: ['errors'],
        properties: {
          code: { type: 'string', enum: ['validation_failed'] },
          errors: {
            type: 'array',
            items: ref('schemas', 'FieldError'),
            minItems: 1,
            maxItems: 100,
            description: 'One entry per offending field; at most 100, and then `detail` begins "More than 100 fields are invalid".',
          },
        },
      },
    ],
  };

  const paths: Json = {};
  for (const [path, item] of Object.entries<Json>(generated.paths ?? {})) {
    const integration = path.startsWith(prefixes.integration);
    for (const op of Object.values<Json>(item)) shapeOperation(op, { integration });
    paths[path] = hoist(item, schemas);
  }
  for (const item of Object.values<Json>(paths)) for (const op of Object.values<Json>(item)) for (const p of op.parameters ?? []) shapeParameter(p, schemas);
  const webhooks = hoist(clone(parts.webhooks), schemas);
  for (const node of [paths, webhooks, schemas]) literalUnionsAsEnums(node);
  discriminateByType(schemas);

  const components = {
    ...generated.components,
    schemas,
    headers: HEADERS,
    parameters: { IdempotencyKey: IDEMPOTENCY_KEY_PARAMETER },
    responses: hoist(clone(CONNECTION_RESPONSES), schemas),
  };
  const view = (prefix: string, extra: Json) => {
    const own = Object.fromEntries(Object.entries(paths).filter(([p]) => p.startsWith(prefix)));
    const doc: Json = { ...generated, ...extra, paths: own };
    delete doc.components;
    doc.components = reachable({ paths: own, webhooks: doc.webhooks ?? {} }, components);
    return doc;
  };
  const integration = view(prefixes.integration, { webhooks });
  const platform = view(prefixes.platform, { info: parts.platformInfo, tags: parts.platformTags, security: [{ operatorToken: [] }] });
  platform.components.securitySchemes = { operatorToken: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <PLATFORM_ADMIN_TOKEN>' } };
  delete platform.webhooks;
  integration.components.securitySchemes = Object.fromEntries(
    Object.entries<Json>(integration.components.securitySchemes ?? {}).filter(([k]) => k !== 'operatorToken'),
  );
  return { integration, platform };
}
