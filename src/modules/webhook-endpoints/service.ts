// Webhook endpoint records and their rules, shared by the operator API and the portal.
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { inTransaction } from '../../db/database.ts';
import type { Ctx } from '../../http/context.ts';
import { invalidFields, notFound, type FieldError } from '../../http/errors.ts';
import { afterPosition, finishPage, type PageRequest } from '../../http/paging.ts';
import { iso, isoOrNull } from '../../http/serialize.ts';
import { checkLocationIds } from '../api-keys/service.ts';
import { endpointUrlRefusal } from '../../events/address-policy.ts';
import { EVENT_TYPES, emitEvent } from '../../events/outbox.ts';

export const newSigningSecret = () => `whsec_${randomBytes(32).toString('base64url')}`;

export interface EndpointInput {
  url: string;
  events: string[];
  location_ids?: string[] | null;
  description?: string | null;
}

type EndpointRow = {
  id: string;
  url: string;
  description: string | null;
  events: string[];
  location_ids: string[] | null;
  status: 'enabled' | 'disabled';
  created_at: Date;
  updated_at: Date;
};

export const endpointColumns = ['id', 'url', 'description', 'events', 'location_ids', 'status', 'created_at', 'updated_at'] as const;

export function presentEndpoint(e: EndpointRow) {
  return {
    id: e.id,
    url: e.url,
    description: e.description,
    events: e.events,
    location_ids: e.location_ids,
    status: e.status,
    created_at: iso(e.created_at),
    updated_at: iso(e.updated_at),
  };
}

/** URL rules at save time (the one address policy of src/events/address-policy.ts). */
export function urlProblems(url: string, allowPrivate: boolean, path = '/url'): FieldError[] {
  const refusal = endpointUrlRefusal(url, allowPrivate);
  return refusal ? [{ path, ...refusal }] : [];
}

export async function validateEndpointInput(ctx: Ctx, input: Partial<EndpointInput>, allowPrivate: boolean) {
  const errors: FieldError[] = [];
  if (input.url !== undefined) errors.push(...urlProblems(input.url, allowPrivate));
  input.events?.forEach((e, i) => {
    if (!(EVENT_TYPES as readonly string[]).includes(e)) errors.push({ path: `/events/${i}`, message: `unknown event type "${e}"`, code: 'invalid_value' });
  });
  if (errors.length) throw invalidFields(errors);
  await checkLocationIds(ctx.db, ctx.merchantId, input.location_ids, '/location_ids');
}

export async function createEndpoint(ctx: Ctx, input: EndpointInput, allowPrivate: boolean) {
  await validateEndpointInput(ctx, input, allowPrivate);
  const signing_secret = newSigningSecret();
  const row = await ctx.db
    .insertInto('webhook_endpoints')
    .values({
      merchant_id: ctx.merchantId,
      url: input.url,
      description: input.description ?? null,
      events: [...new Set(input.events)],
      location_ids: input.location_ids && input.location_ids.length ? [...new Set(input.location_ids)] : null,
      signing_secret,
    })
    .returning(endpointColumns)
    .executeTakeFirstOrThrow();
  return { ...presentEndpoint(row), signing_secret };
}

export async function listEndpoints(ctx: Ctx) {
  const rows = await ctx.db
    .selectFrom('webhook_endpoints')
    .select(endpointColumns)
    .where('merchant_id', '=', ctx.merchantId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
  return rows.map(presentEndpoint);
}

// ——— Operations shared by the operator API and the portal ———

export interface EndpointPatch {
  url?: string;
  events?: string[];
  location_ids?: string[] | null;
  description?: string | null;
  status?: 'enabled' | 'disabled';
}

async function endpointRow(ctx: Ctx, id: string) {
  const row = await ctx.db.selectFrom('webhook_endpoints').select(endpointColumns).where('merchant_id', '=', ctx.merchantId).where('id', '=', id).executeTakeFirst();
  if (!row) throw notFound('webhook endpoint');
  return row;
}

export async function getEndpoint(ctx: Ctx, id: string) {
  return presentEndpoint(await endpointRow(ctx, id));
}

export async function revealSigningSecret(ctx: Ctx, id: string) {
  const row = await ctx.db.selectFrom('webhook_endpoints').select('signing_secret').where('merchant_id', '=', ctx.merchantId).where('id', '=', id).executeTakeFirst();
  if (!row) throw notFound('webhook endpoint');
  return { signing_secret: row.signing_secret };
}

export async function updateEndpoint(ctx: Ctx, id: string, patch: EndpointPatch, allowPrivate: boolean) {
  await endpointRow(ctx, id);
  await validateEndpointInput(ctx, patch, allowPrivate);
  const set: Record<string, unknown> = { updated_at: sql`clock_timestamp()` };
  if (patch.url !== undefined) set.url = patch.url;
  if (patch.events !== undefined) set.events = [...new Set(patch.events)];
  if (patch.location_ids !== undefined) set.location_ids = patch.location_ids && patch.location_ids.length ? [...new Set(patch.location_ids)] : null;
  if (patch.description !== undefined) set.description = patch.description;
  if (patch.status !== undefined) set.status = patch.status;
  const row = await ctx.db.updateTable('webhook_endpoints').set(set).where('merchant_id', '=', ctx.merchantId).where('id', '=', id).returning(endpointColumns).executeTakeFirstOrThrow();
  return presentEndpoint(row);
}

/** A new secret signs from now on; the old one keeps signing beside it for 24 hours. */
export async function rotateSigningSecret(ctx: Ctx, id: string) {
  const signing_secret = newSigningSecret();
  const row = await ctx.db
    .updateTable('webhook_endpoints')
    .set({
      previous_signing_secret: sql`signing_secret`,
      previous_secret_expires_at: sql`clock_timestamp() + interval '24 hours'`,
      signing_secret,
      updated_at: sql`clock_timestamp()`,
    })
    .where('merchant_id', '=', ctx.merchantId)
    .where('id', '=', id)
    .returning(endpointColumns)
    .executeTakeFirst();
  if (!row) throw notFound('webhook endpoint');
  return { ...presentEndpoint(row), signing_secret };
}

type DeliveryRow = {
  id: string; event_id: string; event_type: string; status: 'pending' | 'delivered' | 'failed'; attempts: number;
  last_status_code: number | null; next_attempt_at: Date | null; created_at: Date; updated_at: Date;
};

export const presentDelivery = (d: DeliveryRow) => ({
  id: d.id,
  event_id: d.event_id,
  event_type: d.event_type,
  status: d.status,
  attempts: d.attempts,
  last_status_code: d.last_status_code,
  next_attempt_at: d.status === 'pending' ? isoOrNull(d.next_attempt_at) : null,
  created_at: iso(d.created_at),
  updated_at: iso(d.updated_at),
});

function deliveries(ctx: Ctx, endpointId: string) {
  return ctx.db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('events as e', 'e.id', 'd.event_id')
    .select(['d.id', 'd.event_id', 'e.type as event_type', 'd.status', 'd.attempts', 'd.last_status_code', 'd.next_attempt_at', 'd.created_at', 'd.updated_at'])
    .where('d.merchant_id', '=', ctx.merchantId)
    .where('d.endpoint_id', '=', endpointId);
}

export async function listDeliveries(ctx: Ctx, endpointId: string, page: PageRequest) {
  await endpointRow(ctx, endpointId);
  const rows = await deliveries(ctx, endpointId).where(afterPosition('d', page.after)).orderBy('d.updated_at').orderBy('d.id').limit(page.limit + 1).execute();
  const { items, meta } = finishPage(page, rows);
  return { items: items.map(presentDelivery), meta };
}

/** Newest first: what the portal's delivery log shows. */
export async function recentDeliveries(ctx: Ctx, endpointId: string, limit = 50) {
  await endpointRow(ctx, endpointId);
  const rows = await deliveries(ctx, endpointId).orderBy('d.created_at', 'desc').orderBy('d.id', 'desc').limit(limit).execute();
  return rows.map(presentDelivery);
}

/** A delivery of another endpoint or merchant, or none at all, is 404 (never an empty list). */
export async function listAttempts(ctx: Ctx, endpointId: string, deliveryId: string) {
  await oneDelivery(ctx, endpointId, deliveryId);
  const rows = await ctx.db
    .selectFrom('webhook_attempts as a')
    .innerJoin('webhook_deliveries as d', 'd.id', 'a.delivery_id')
    .select(['a.id', 'a.attempt', 'a.status_code', 'a.duration_ms', 'a.response_excerpt', 'a.error', 'a.created_at'])
    .where('d.merchant_id', '=', ctx.merchantId)
    .where('d.endpoint_id', '=', endpointId)
    .where('d.id', '=', deliveryId)
    .orderBy('a.attempt')
    .execute();
  return rows.map((a) => ({ ...a, created_at: iso(a.created_at) }));
}

async function oneDelivery(ctx: Ctx, endpointId: string, deliveryId: string) {
  const row = await deliveries(ctx, endpointId).where('d.id', '=', deliveryId).executeTakeFirst();
  if (!row) throw notFound('delivery');
  return presentDelivery(row);
}

/** A new delivery of the same event (same event id: receivers de-duplicate by it). */
export async function resendDelivery(ctx: Ctx, endpointId: string, deliveryId: string) {
  const original = await oneDelivery(ctx, endpointId, deliveryId);
  const row = await ctx.db
    .insertInto('webhook_deliveries')
    .values({ merchant_id: ctx.merchantId, endpoint_id: endpointId, event_id: original.event_id, resent_from: original.id })
    .returning('id')
    .executeTakeFirstOrThrow();
  return oneDelivery(ctx, endpointId, row.id);
}

/** Sends a `ping` event to this endpoint only. */
export async function sendTestEvent(ctx: Ctx, endpointId: string) {
  const endpoint = await getEndpoint(ctx, endpointId);
  return inTransaction(ctx.db, async (trx) => {
    const eventId = await emitEvent(trx, {
      merchantId: ctx.merchantId,
      type: 'ping',
      locationId: null,
      object: { endpoint_id: endpoint.id, message: 'This is a test event from the merchant integration API.' },
      onlyEndpointId: endpoint.id,
    });
    const d = await trx.selectFrom('webhook_deliveries').select('id').where('event_id', '=', eventId).executeTakeFirstOrThrow();
    return oneDelivery({ ...ctx, db: trx }, endpointId, d.id);
  });
}

/** Deletes the endpoint with its deliveries and their attempts; events stay (other endpoints, the feed). */
export async function deleteEndpoint(ctx: Ctx, id: string) {
  const row = await ctx.db.deleteFrom('webhook_endpoints').where('merchant_id', '=', ctx.merchantId).where('id', '=', id).returning(endpointColumns).executeTakeFirst();
  if (!row) throw notFound('webhook endpoint');
  return presentEndpoint(row);
}
