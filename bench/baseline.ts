// The ceiling the service is measured against: bare Fastify + pg (pool of 10, like the service),
// no auth, no validation, no response schema. Each page is ONE statement that has PostgreSQL build
// the items' JSON (json_build_object / json_agg in correlated subqueries) and the handler only
// wraps that text in the envelope, so what is left is the cost of the SQL and of HTTP.
// The answers have the service's JSON shape (bench/reads.ts compares one of each).
//   PORT=7102 DATABASE_URL=postgres://… MERCHANT_ID=… node bench/baseline.ts
// Cursors are plain base64url JSON (unsigned): enough to page, not for the outside world.
// With REQUEST_LOG=1 it also writes each request's row to the request log through the service's own
// writer (COPY in batches, src/http/request-log.ts): the ceiling of a service that keeps the log.
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import Fastify from 'fastify';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import pino from 'pino';
import type { DB } from '../src/db/schema.ts';
import { monotonicUuidV7 } from '../src/db/uuid7.ts';
import { fetchRows } from '../src/http/paging.ts';
import { createRequestLog } from '../src/http/request-log.ts';
import { logRequests } from '../src/http/request-log-hooks.ts';
import { API_KEY_ID } from './data.ts';

const iso = (col: string) => `to_char(${col} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

const productJson = `json_build_object(
  'id', p.id, 'source', p.source, 'source_name', p.source_name, 'external_id', p.external_id, 'title', p.title,
  'description', p.description, 'handle', p.handle, 'status', p.status, 'review_status', p.review_status,
  'pending_title', p.pending_title, 'pending_description', p.pending_description, 'vendor_id', p.vendor_id,
  'primary_image_asset_id', p.primary_image_asset_id,
  'gallery_asset_ids', coalesce((select json_agg(g.asset_id order by g.position) from product_gallery g where g.product_id = p.id), '[]'),
  'tag_ids', coalesce((select json_agg(t.tag_id order by t.position) from product_tags t where t.product_id = p.id), '[]'),
  'media', coalesce((select json_agg(json_build_object('id', m.id, 'url', a.url, 'kind', coalesce(a.kind, 'image'), 'position', m.n - 1) order by m.n)
                       from (select id, row_number() over (order by o) n
                               from (select p.primary_image_asset_id id, -1 o where p.primary_image_asset_id is not null
                                     union all select g.asset_id, g.position from product_gallery g where g.product_id = p.id) x) m
                       left join media_assets a on a.id = m.id), '[]'),
  'variants', coalesce((select json_agg(json_build_object(
      'id', v.id, 'external_id', v.external_id, 'sku', v.sku, 'option1', v.option1, 'option2', v.option2, 'option3', v.option3,
      'price', v.price, 'compare_at_price', v.compare_at_price, 'barcode', v.barcode, 'inventory_policy', v.inventory_policy,
      'media_asset_id', v.media_asset_id, 'shipping_profile', v.shipping_profile, 'requires_shipping', v.requires_shipping,
      'weight', v.weight, 'weight_unit', v.weight_unit,
      'inventory', coalesce((select json_agg(json_build_object('fulfillment_location_id', l.location_id, 'on_hand', l.on_hand,
                                             'committed', l.committed, 'available', l.on_hand - l.committed) order by l.location_id)
                               from inventory_levels l where l.variant_id = v.id), '[]'))
      order by v.position, v.created_at) from variants v where v.product_id = p.id), '[]'),
  'created_at', ${iso('p.created_at')}, 'updated_at', ${iso('p.updated_at')})`;

const addressFields = ['name', 'company', 'address1', 'address2', 'city', 'province', 'postal_code', 'country_code', 'phone'];
const orderJson = `json_build_object(
  'id', o.id, 'order_number', o.order_number, 'status', o.status, 'fulfillment_status', o.fulfillment_status,
  'fulfillment_location_id', o.fulfillment_location_id, 'currency', o.currency, 'total_price', o.total_price,
  'customer', json_build_object('name', o.customer->'name', 'email', o.customer->'email', 'phone', o.customer->'phone'),
  'shipping_address', json_build_object(${addressFields.map((f) => `'${f}', o.shipping_address->'${f}'`).join(', ')}),
  'line_items', coalesce(li.items, '[]'),
  'fulfillment_summary', json_build_object('fulfilled_quantity', coalesce(li.fulfilled, 0), 'total_quantity', coalesce(li.total, 0),
     'fulfillment_ids', coalesce((select json_agg(f.id order by f.created_at, f.id) from fulfillments f where f.order_id = o.id), '[]')),
  'created_at', ${iso('o.created_at')}, 'updated_at', ${iso('o.updated_at')})`;
const orderLines = `left join lateral (
  select json_agg(json_build_object('id', l.id, 'product_id', l.product_id, 'variant_id', l.variant_id, 'sku', l.sku, 'title', l.title,
           'variant_title', l.variant_title, 'quantity', l.quantity, 'fulfilled_quantity', l.fulfilled_quantity,
           'fulfillable_quantity', case when o.status = 'open' then l.quantity - l.fulfilled_quantity else 0 end, 'price', l.price)
           order by l.position) items,
         sum(l.fulfilled_quantity) fulfilled, sum(l.quantity) total
    from order_line_items l where l.order_id = o.id) li on true`;

const fulfillmentJson = `json_build_object(
  'id', f.id, 'merchant_order_id', f.order_id, 'fulfillment_location_id', f.fulfillment_location_id, 'status', f.status,
  'carrier_name', f.carrier_name, 'service_level', f.service_level,
  'tracking', case when f.tracking_number is null then null else json_build_object('tracking_number', f.tracking_number,
     'tracking_url', f.tracking_url, 'carrier_name', f.tracking_carrier_name, 'service_level', f.tracking_service_level) end,
  'items', coalesce((select json_agg(json_build_object('merchant_order_item_id', i.line_item_id, 'quantity', i.quantity) order by i.position)
                       from fulfillment_items i where i.fulfillment_id = f.id), '[]'),
  'created_at', ${iso('f.created_at')}, 'updated_at', ${iso('f.updated_at')})`;

const inventoryJson = `json_build_object(
  'id', l.id, 'variant_id', l.variant_id, 'product_id', l.product_id, 'sku', l.sku, 'fulfillment_location_id', l.location_id,
  'on_hand', l.on_hand, 'committed', l.committed, 'available', l.on_hand - l.committed, 'updated_at', ${iso('l.updated_at')})`;

interface List {
  /** Table alias the page is keyed on, and the FROM clause of the page (rows of `alias`). */
  alias: string;
  from: string;
  /** The item's JSON, over the page's rows (`alias`) plus `joins`. */
  json: string;
  joins?: string;
  filter?: { param: string; where: string };
}

const lists: Record<string, List> = {
  products: { alias: 'p', from: 'products p', json: productJson },
  orders: { alias: 'o', from: 'orders o', json: orderJson, joins: orderLines, filter: { param: 'status', where: 'o.status = $4' } },
  fulfillments: { alias: 'f', from: 'fulfillments f', json: fulfillmentJson, filter: { param: 'status', where: 'f.status = $4' } },
  // Rows keep the variant's columns for the JSON; the SKU filter goes through the variants_sku index.
  inventory: {
    alias: 'l',
    from: 'inventory_levels l join variants v on v.id = l.variant_id',
    json: inventoryJson,
    filter: { param: 'sku', where: 'v.merchant_id = $1 and v.sku = $4' },
  },
};

/** The page statement: $1 merchant, $2/$3 cursor position, $4 the filter; the rows to fetch written
 * in, as the service writes them (fetchRows: limit + 1 or the next fixed size up, so the plan is kept). */
function pageStatement(list: List, cursor: boolean, filtered: boolean, fetch: number): string {
  const a = list.alias;
  const where = [`${a}.merchant_id = $1`, cursor ? `(${a}.updated_at, ${a}.id) > ($2::timestamptz, $3::uuid)` : '$2::text is null and $3::text is null'];
  if (filtered) where.push(list.filter!.where);
  const columns = list.alias === 'l' ? 'l.*, v.product_id, v.sku' : `${a}.*`;
  // An inner page (keyset, limit) and the JSON built only for its rows.
  return `select ${list.json}::text j, ${iso(`${a}.updated_at`)} u, ${a}.id
            from (select ${columns} from ${list.from} where ${where.join(' and ')} order by ${a}.updated_at, ${a}.id limit ${fetch}) ${a}
            ${list.joins ?? ''}
           order by ${a}.updated_at, ${a}.id`;
}

const orderById = `select ${orderJson}::text j from orders o ${orderLines} where o.merchant_id = $1 and o.id = $2`;

const send = (data: string, meta?: { limit: number; next_cursor: string | null }) =>
  `{"data":${data},"request_id":${JSON.stringify(randomUUID())}${meta ? `,"meta":${JSON.stringify(meta)}` : ''}}`;

export async function startBaseline(opts: { port: number; databaseUrl: string; merchantId?: string; requestLog?: boolean }) {
  const pool = new pg.Pool({ connectionString: opts.databaseUrl, max: 10 });
  const merchantId = opts.merchantId ?? (await pool.query('select id from merchants order by created_at limit 1')).rows[0].id;
  const app = Fastify({ logger: false, genReqId: opts.requestLog ? monotonicUuidV7 : undefined });
  // The service's writer on this pool.
  const requestLog = opts.requestLog
    ? createRequestLog(new Kysely<DB>({ dialect: new PostgresDialect({ pool }) }), pino({ level: 'warn' }), { enabled: true, pool })
    : null;
  if (requestLog) {
    // The service's own hooks (src/http/request-log-hooks.ts), every request made with the bench's key.
    const key = { id: API_KEY_ID, merchantId };
    app.decorate('requestLog', requestLog);
    app.decorateRequest('loggedKey', { getter: () => key });
    logRequests(app);
  }
  const statementNames = new Map<string, string>();
  const named = (text: string) => {
    let name = statementNames.get(text);
    if (!name) statementNames.set(text, (name = `bench_${statementNames.size}`));
    return { name, text };
  };

  for (const [path, list] of Object.entries(lists)) {
    app.get(`/api/integrations/v1/${path}`, async (req, reply) => {
      const q = req.query as Record<string, string | undefined>;
      const limit = Math.min(Math.max(Number(q.limit ?? 50) || 50, 1), 250);
      let after: [string | null, string | null] = [null, null];
      if (q.cursor) {
        const c = JSON.parse(Buffer.from(q.cursor, 'base64url').toString('utf8')) as { u: string; i: string };
        after = [c.u, c.i];
      }
      const filter = list.filter && q[list.filter.param] !== undefined ? q[list.filter.param]! : undefined;
      const values: unknown[] = [merchantId, ...after];
      if (filter !== undefined) values.push(filter);
      const text = pageStatement(list, !!q.cursor, filter !== undefined, fetchRows(limit));
      const { rows } = await pool.query<{ j: string; u: string; id: string }>({ ...named(text), values });
      const items = rows.slice(0, limit);
      const last = items[items.length - 1];
      const next_cursor = rows.length > limit ? Buffer.from(JSON.stringify({ u: last.u, i: last.id })).toString('base64url') : null;
      reply.type('application/json; charset=utf-8');
      return send(`[${items.map((r) => r.j).join(',')}]`, { limit, next_cursor });
    });
  }
  app.get('/api/integrations/v1/orders/:id', async (req, reply) => {
    const { rows } = await pool.query<{ j: string }>({ ...named(orderById), values: [merchantId, (req.params as { id: string }).id] });
    reply.type('application/json; charset=utf-8');
    if (!rows[0]) return reply.code(404).send('{"code":"not_found"}');
    return send(rows[0].j);
  });
  app.get('/readyz', async () => ({ ok: true }));
  await app.listen({ port: opts.port, host: '127.0.0.1' });
  return {
    close: async () => {
      await app.close();
      await requestLog?.close();
      await pool.end();
    },
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const server = await startBaseline({
    port: Number(process.env.PORT ?? 7102),
    databaseUrl: process.env.DATABASE_URL!,
    merchantId: process.env.MERCHANT_ID,
    requestLog: process.env.REQUEST_LOG === '1',
  });
  const stop = () => void server.close().then(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
