// The published API documents and the pages for people: the integration API's OpenAPI document
// (/api/integrations/v1/openapi.json), the operator API's (/api/platform/v1/openapi.json), the
// reference rendered with Redoc (/docs) and the error codes (/errors).
import fs from 'node:fs';
import { createRequire } from 'node:module';
import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import { ERROR_CODES, ERROR_DESCRIPTIONS, FIELD_ERROR_CODES, type ErrorCode, type FieldErrorCode } from '../http/errors.ts';
import { SCOPE_ALIASES } from '../http/scopes.ts';
import { publishedDocuments, type OpenApiDocument } from './document.ts';
import { webhooksSection } from './webhooks.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** The two published documents, built once from the route schemas. */
    openApiDocuments(): { integration: OpenApiDocument; platform: OpenApiDocument };
  }
}

export interface Prefixes {
  integration: string;
  platform: string;
}

const hidden = { schema: { hide: true } } as const;

/** " (or `fulfillments.write`, which grants it)": the alias scopes that grant a scope, for its operations' descriptions. */
const SCOPE_GRANTED_BY: Record<string, string> = Object.fromEntries(
  Object.values(SCOPE_ALIASES)
    .flat()
    .map((scope) => {
      const aliases = Object.entries(SCOPE_ALIASES)
        .filter(([, granted]) => granted?.includes(scope))
        .map(([alias]) => `\`${alias}\``);
      return [scope, ` (or ${aliases.join(', ')}, which grants it)`];
    }),
);

export async function registerOpenApi(app: FastifyInstance, prefixes: Prefixes) {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Merchant Integration API',
        version: '1.0.0',
        description: API_DESCRIPTION(prefixes.integration),
        contact: { name: 'Integration support', email: 'integrations@example.com' },
        license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
      },
      // Absolute where the deployment knows its URL, so a saved copy of the document and a generated
      // client's default base URL still point at it; relative ("this server") otherwise.
      servers: app.config.publicBaseUrl
        ? [{ url: app.config.publicBaseUrl.replace(/\/$/, ''), description: 'This deployment (PUBLIC_BASE_URL)' }]
        : [{ url: '/', description: 'This server' }],
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <API key> (preferred)' },
          apiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'Fallback when Authorization is absent' },
        },
      },
      security: [{ bearerAuth: [] }, { apiKeyHeader: [] }],
      tags: [
        { name: 'Products', description: 'Native and connected products with variants, media and inventory.' },
        { name: 'Collections', description: 'Manual and smart collections.' },
        { name: 'Orders', description: 'Orders to fulfil.' },
        { name: 'Fulfillments', description: 'Fulfillments and tracking written back by the warehouse.' },
        { name: 'Inventory', description: 'Stock per variant and location, and adjustments.' },
        { name: 'Social videos', description: 'Videos linked to products and collections.' },
        { name: 'Reference data', description: 'Locations, vendors, tags and media assets.' },
        { name: 'Events', description: 'The event feed: every change in commit order, gap-free, to sync from (webhooks wake you up, the lists backfill).' },
        { name: 'Webhooks', description: 'Signed POSTs to your endpoints, one per event: the envelope, the resource it carries and the signature headers.' },
      ],
    },
    transform: ({ schema, url, route }) => {
      const documented = (url.startsWith(prefixes.integration) || url.startsWith(prefixes.platform)) && !url.endsWith('/openapi.json');
      const transformed: Record<string, unknown> = { ...(schema ?? {}) };
      if (!documented || transformed.hide) return { schema: { ...transformed, hide: true }, url };
      // operationIds are the names generated clients use: each route states its own.
      if (!transformed.operationId) throw new Error(`${route.method} ${url} has no operationId`);
      if (!transformed.response) throw new Error(`${route.method} ${url} has no response schema`);
      transformed.description ??= transformed.summary;
      // The scope the key needs, where one scope guards the route: in the security requirement (OpenAPI
      // 3.1 lets any scheme name roles), so generated clients and the rendered docs can tell which key to make.
      const scope = (route.config as { scope?: string } | undefined)?.scope;
      if (scope) {
        transformed.security = [{ bearerAuth: [scope] }, { apiKeyHeader: [scope] }];
        transformed.description = `${String(transformed.description)}\n\nRequires the scope \`${scope}\`${SCOPE_GRANTED_BY[scope] ?? ''}.`;
      }
      return { schema: transformed, url };
    },
  });

  let documents: ReturnType<FastifyInstance['openApiDocuments']> | null = null;
  app.decorate('openApiDocuments', () => {
    documents ??= publishedDocuments(app.swagger(), prefixes, {
      webhooks: webhooksSection(),
      platformInfo: {
        title: 'Merchant Integration API: operator API',
        version: '1.0.0',
        description:
          'Onboarding and storefront intake for operators, guarded by `Authorization: Bearer $PLATFORM_ADMIN_TOKEN`. Same envelopes and errors as the integration API.',
        contact: { name: 'Platform operations', email: 'integrations@example.com' },
        license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
      },
      platformTags: [{ name: 'Operator', description: 'Merchants, users, locations, keys, webhook endpoints, orders and catalog sync.' }],
    });
    return documents;
  });

  app.get(`${prefixes.integration}/openapi.json`, hidden, async () => app.openApiDocuments().integration);
  app.get(`${prefixes.platform}/openapi.json`, hidden, async () => app.openApiDocuments().platform);
  // A static page: no script, one inline style, framed by nobody (it was the one page without a CSP).
  app.get('/errors', hidden, async (_req, reply) =>
    reply
      .header('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
      .header('X-Frame-Options', 'DENY')
      .type('text/html; charset=utf-8')
      .send(errorsPage()),
  );
  registerDocsPage(app, `${prefixes.integration}/openapi.json`);
}

// ---------------------------------------------------------------------------------------------
// /docs: Redoc's standalone bundle, served from node_modules (never a CDN), under a CSP without
// upgrade-insecure-requests so it renders over plain http on any host name.

const require = createRequire(import.meta.url);
const REDOC_BUNDLE = require.resolve('redoc/bundles/redoc.standalone.js');
const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'", // Redoc styles itself with injected <style> elements
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:", // its search index runs in a worker
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

function registerDocsPage(app: FastifyInstance, documentUrl: string) {
  let bundle: Buffer | null = null;
  app.get('/docs', hidden, async (_req, reply) =>
    reply.header('Content-Security-Policy', DOCS_CSP).header('Cache-Control', 'no-cache').type('text/html; charset=utf-8').send(docsPage(documentUrl)),
  );
  app.get('/docs/redoc.standalone.js', hidden, async (_req, reply) => {
    // The bundle's side menu shows a logo from Redocly's CDN: point it at an empty local image, so
    // the page makes no request beyond this server.
    bundle ??= Buffer.from(
      fs
        .readFileSync(REDOC_BUNDLE, 'utf8')
        .replaceAll('https://cdn.redoc.ly/redoc/logo-mini.svg', 'data:image/svg+xml,%3Csvg xmlns=%22http://www.w3.org/2000/svg%22/%3E'),
    );
    return reply.header('Cache-Control', 'public, max-age=3600').type('text/javascript; charset=utf-8').send(bundle);
  });
  app.get('/docs/init.js', hidden, async (_req, reply) =>
    reply.header('Cache-Control', 'no-cache').type('text/javascript; charset=utf-8').send(docsInit(documentUrl)),
  );
}

function docsPage(documentUrl: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Merchant Integration API reference</title>
<link rel="icon" href="data:,">
<style>body{margin:0}.raw-link{font:14px/1.4 system-ui,sans-serif;padding:.5rem 1rem;background:#f4f6f8;border-bottom:1px solid #dde}</style>
</head>
<body>
<div class="raw-link">OpenAPI 3.1 document: <a href="${documentUrl}">${documentUrl}</a> · <a href="/errors">Error codes</a></div>
<div id="redoc"><p style="font:15px system-ui,sans-serif;padding:1rem">Loading the API reference…</p></div>
<script src="/docs/redoc.standalone.js"></script>
<script src="/docs/init.js"></script>
</body>
</html>`;
}

function docsInit(documentUrl: string): string {
  const options = {
    expandResponses: '200,201',
    requiredPropsFirst: true,
    jsonSampleExpandLevel: 3,
    showWebhookVerb: true,
    hideDownloadButton: false,
    expandSingleSchemaField: true,
    theme: { sidebar: { width: '260px' } },
  };
  return `Redoc.init(${JSON.stringify(documentUrl)}, ${JSON.stringify(options)}, document.getElementById('redoc'));\n`;
}

// ---------------------------------------------------------------------------------------------

function errorsPage(): string {
  const rows = (Object.keys(ERROR_CODES) as ErrorCode[])
    .map((c) => `<tr id="${c}"><td><code>${c}</code></td><td>${ERROR_CODES[c].status}</td><td>${ERROR_DESCRIPTIONS[c]}</td></tr>`)
    .join('\n');
  const fieldRows = (Object.keys(FIELD_ERROR_CODES) as FieldErrorCode[])
    .map((c) => `<tr id="field-${c}"><td><code>${c}</code></td><td>${FIELD_ERROR_CODES[c]}</td></tr>`)
    .join('\n');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Error codes</title>
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:900px;margin:2rem auto;padding:0 1rem}table{border-collapse:collapse}td,th{padding:.4rem .6rem;border-bottom:1px solid #ddd;text-align:left;vertical-align:top}:target{background:#fff6d5}</style>
</head><body><h1>Error codes</h1><p>Every error is an RFC 9457 problem (<code>application/problem+json</code>) whose <code>type</code> links here and whose <code>code</code> is one of these. The <a href="/docs">API reference</a> lists the codes each operation can answer.</p>
<table><tr><th>code</th><th>status</th><th>meaning</th></tr>${rows}</table>
<h2 id="field-codes">Field error codes</h2><p>A <code>validation_failed</code> (or <code>insufficient_inventory</code>) problem lists every offending field in <code>errors[]</code>: <code>{"path": "/json/pointer", "message", "code"}</code>, with <code>code</code> one of these.</p>
<table><tr><th>code</th><th>meaning</th></tr>${fieldRows}</table></body></html>`;
}

const API_DESCRIPTION = (prefix: string) => `The merchant-scoped API for warehouses, 3PLs and other integrations: read a merchant's catalog and
orders, write back fulfillments, tracking and inventory.

The raw OpenAPI 3.1 document is at [${prefix}/openapi.json](${prefix}/openapi.json); generate your client from it.

* **Authentication**: \`Authorization: Bearer <API key>\` (or \`X-API-Key\` when Authorization is absent). Keys are
  created in the merchant portal, carry scopes, and may be restricted to fulfillment locations.
* **Envelopes**: \`{"data": ..., "request_id"}\`; lists add \`meta: {limit, next_cursor}\`. Every response carries
  \`X-Request-Id\`.
* **Errors**: RFC 9457 problem details (\`application/problem+json\`) with a stable \`code\` (each operation lists the
  codes it can answer); validation errors list every field as a JSON pointer in \`errors[]\` with a field code. See
  [/errors](/errors). Before it reaches an operation, any request may be answered 400 \`malformed_request\` (a path or
  query string that is not valid percent-encoded UTF-8, an HTTP/1.1 request without \`Host\`, one that is not valid
  HTTP/1.1, \`CONNECT\`), 408 \`request_timeout\` (headers and body not received within 30 s; the connection is
  closed), 414 \`uri_too_long\` (a URL over 16 KB) or 431 \`headers_too_large\` (the request line and headers over
  16 KB).
* **Lists**: ordered by \`(updated_at, id)\` ascending; \`limit\` 1..250 (default 50); \`cursor\` is opaque and bound to
  the filters it was made with; \`updated_after\` is accepted on every list but the event feed (which takes
  \`after\`). Writes commit out of order, so an
  incremental sync by \`updated_after\` must overlap and de-duplicate by id.
* **Event feed**: \`GET /events?after=<position>\` lists every change in commit order, each event exactly once,
  whatever commits concurrently: sync from it (webhooks wake you up; the lists backfill).
* **Idempotency**: every write accepts \`Idempotency-Key\` (fulfillment create, tracking attach, inventory
  adjustments, and the creates and updates of products, collections and social videos)
  (1..255 printable ASCII, kept 48 h by default and never less than 24 h); a replay answers the stored response with \`Idempotent-Replayed: true\`.
* **Rate limits**: per key (default 600/min), with \`RateLimit-Policy\` and \`RateLimit\` headers (IETF draft-10) and
  \`Retry-After\` on 429.
* **Webhooks**: every event type, its envelope and the resource it carries are in the Webhooks section. Each POST is
  signed: \`X-Service-Webhook-Signature: v1=<hex>\`, HMAC-SHA256 of \`timestamp + "." + raw body\` with the endpoint's
  signing secret (both signatures, space-separated, during a rotation). Each carries the event's feed \`position\`
  (body and \`X-Service-Webhook-Position\`).`;
