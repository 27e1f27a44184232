// Webhook endpoint records and their rules, shared by the operator API and the portal.
import { randomBytes } from 'node:crypto';
import { inTransaction } from '../../db/database.ts';
import type { Ctx } from '../../http/context.ts';
import { AppError, invalidFields, notFound, type FieldError } from '../../http/errors.ts';
import { checkLocationIds, storedLocationIds } from '../../http/location-restriction.ts';
import type { PageRequest } from '../../http/paging.ts';
import { iso, isoOrNull } from '../../http/serialize.ts';
import { EVENT_TYPES, emitEvent, type EventType } from '../../events/outbox.ts';
import {
  countEndpointsLocked,
  deleteEndpointRow,
  deliveryOfEvent,
  endUntakenDeliveries,
  insertDelivery,
  insertEndpoint,
  rotateSecret,
  selectAttempts,
  selectAttemptsAfter,
  selectDelivery,
  selectDeliveryPage,
  selectEndpoint,
  selectEndpointForShare,
  selectEndpointPage,
  selectEventTarget,
  selectEndpoints,
  selectSigningSecret,
  statusChange,
  updateEndpointRow,
  type DeliveryRow,
  type EndpointRow,
} from './queries.ts';
import { savedUrlRefusal } from './endpoint-url.ts';
import type { Delivery, Endpoint, EndpointBody, EndpointPatch, EndpointState } from './schemas.ts';

// The columns hold what the body schemas let in; the guards give the presenters the published enums' types.
const subscribable = new Set<string>(EVENT_TYPES);
const isEventType = (type: string): type is EventType => subscribable.has(type);

const newSigningSecret = () => `whsec_${randomBytes(32).toString('base64url')}`;

export function presentEndpoint(e: EndpointRow): Endpoint {
  return {
    id: e.id,
    url: e.url,
    description: e.description,
    events: e.events.filter(isEventType),
    location_ids: e.location_ids,
    status: e.status,
    created_at: iso(e.created_at),
    updated_at: iso(e.updated_at),
  };
}

export function presentDelivery(d: DeliveryRow): Delivery {
  return {
    id: d.id,
    event_id: d.event_id,
    // What this version emits; a type a later version drops stays readable in the log, not a 500.
    event_type: d.event_type as Delivery['event_type'],
    status: d.status,
    attempts: d.attempts,
    last_status_code: d.last_status_code,
    next_attempt_at: d.status === 'pending' ? isoOrNull(d.next_attempt_at) : null,
    created_at: iso(d.created_at),
    updated_at: iso(d.updated_at),
  };
}

const presentAttempt = <A extends { created_at: Date }>(a: A) => ({ ...a, created_at: iso(a.created_at) });

/**
 * The rules a schema cannot hold: the URL's address policy and written form (./endpoint-url.ts) and
 * locations of this merchant. Event types are an enum of every route schema.
 */
async function checkEndpointInput(ctx: Ctx, input: EndpointPatch, allowPrivate: boolean) {
  const refusal = input.url === undefined ? null : savedUrlRefusal(input.url, allowPrivate);
  const errors: FieldError[] = refusal ? [{ path: '/url', ...refusal }] : [];
  if (errors.length) throw invalidFields(errors);
  await checkLocationIds(ctx.db, ctx, input.location_ids);
}

async function endpointRow(ctx: Ctx, id: string) {
  const row = await selectEndpoint(ctx.db, ctx, id);
  if (!row) throw notFound('webhook endpoint');
  return row;
}

/**
 * The most endpoints a merchant may have when it makes one in the portal. Each endpoint is a URL the
 * service posts to; the operator API, the platform's own tool, is not limited (contract §8).
 */
export const PORTAL_MAX_ENDPOINTS = 20;

/** `maxEndpoints`: refuse (422 `too_many`) when the merchant already has that many. */
export async function createEndpoint(ctx: Ctx, input: EndpointBody, allowPrivate: boolean, maxEndpoints?: number) {
  await checkEndpointInput(ctx, input, allowPrivate);
  const signing_secret = newSigningSecret();
  const values = {
    url: input.url,
    description: input.description ?? null,
    events: [...new Set(input.events)],
    location_ids: storedLocationIds(input.location_ids),
    signing_secret,
  };
  const row =
    maxEndpoints === undefined
      ? await insertEndpoint(ctx.db, ctx, values)
      : await inTransaction(ctx.db, async (trx) => {
          if ((await countEndpointsLocked(trx, ctx)) >= maxEndpoints) {
            const rule = `at most ${maxEndpoints} webhook endpoints: delete one it no longer uses, or subscribe an existing one to more events`;
            // The rule is about the merchant, not a field: errors[] points at the whole body.
            throw new AppError('validation_failed', `A merchant has ${rule}.`, [{ path: '', message: `a merchant has ${rule}`, code: 'too_many' }]);
          }
          return insertEndpoint(trx, ctx, values);
        });
  return { ...presentEndpoint(row), signing_secret };
}

/** An endpoint as the portal shows it: with why and since when it is disabled (`disabled`, null when enabled). */
export function presentEndpointState(e: EndpointRow): EndpointState {
  const disabled =
    e.status === 'disabled' && e.disabled_reason !== null && e.disabled_at !== null ? { reason: e.disabled_reason, at: iso(e.disabled_at) } : null;
  return { ...presentEndpoint(e), disabled };
}

/** The merchant's endpoints, newest first, as the portal shows them. */
export async function listEndpoints(ctx: Ctx): Promise<EndpointState[]> {
  return (await selectEndpoints(ctx.db, ctx)).map(presentEndpointState);
}

export async function getEndpointState(ctx: Ctx, id: string): Promise<EndpointState> {
  return presentEndpointState(await endpointRow(ctx, id));
}

/** A page of the merchant's endpoints in list order, (updated_at, id) ascending (the operator API). */
export async function listEndpointPage(ctx: Ctx, page: PageRequest, updatedAfter?: string) {
  const { items, meta } = await selectEndpointPage(ctx.db, ctx, page, updatedAfter);
  return { items: items.map(presentEndpoint), meta };
}

export async function getEndpoint(ctx: Ctx, id: string): Promise<Endpoint> {
  return presentEndpoint(await endpointRow(ctx, id));
}

export async function revealSigningSecret(ctx: Ctx, id: string) {
  const row = await selectSigningSecret(ctx.db, ctx, id);
  if (!row) throw notFound('webhook endpoint');
  return { signing_secret: row.signing_secret };
}

export async function updateEndpoint(ctx: Ctx, id: string, patch: EndpointPatch, allowPrivate: boolean): Promise<Endpoint> {
  await endpointRow(ctx, id);
  await checkEndpointInput(ctx, patch, allowPrivate);
  return inTransaction(ctx.db, async (trx) => {
    const row = await updateEndpointRow(trx, ctx, id, {
      url: patch.url,
      events: patch.events && [...new Set(patch.events)],
      location_ids: patch.location_ids === undefined ? undefined : storedLocationIds(patch.location_ids),
      description: patch.description,
      ...statusChange(patch.status),
    });
    if (!row) throw notFound('webhook endpoint');
    // Retries of events the endpoint no longer takes would reach whatever it points at now (a 3PL
    // that should see one location): they end instead (contract §7's location filter).
    if (patch.events !== undefined || patch.location_ids !== undefined) await endUntakenDeliveries(trx, ctx, id);
    return presentEndpoint(row);
  });
}

/** A new secret signs from now on; the old one keeps signing beside it for 24 hours. */
export async function rotateSigningSecret(ctx: Ctx, id: string) {
  const signing_secret = newSigningSecret();
  const row = await rotateSecret(ctx.db, ctx, id, signing_secret);
  if (!row) throw notFound('webhook endpoint');
  return { ...presentEndpoint(row), signing_secret };
}

export async function listDeliveries(ctx: Ctx, endpointId: string, page: PageRequest, updatedAfter?: string) {
  await endpointRow(ctx, endpointId);
  const { items, meta } = await selectDeliveryPage(ctx.db, ctx, endpointId, page, updatedAfter);
  return { items: items.map(presentDelivery), meta };
}

async function oneDelivery(ctx: Ctx, endpointId: string, deliveryId: string) {
  const row = await selectDelivery(ctx.db, ctx, endpointId, deliveryId);
  if (!row) throw notFound('delivery');
  return presentDelivery(row);
}

/** A delivery of another endpoint or merchant, or none at all, is 404 (never an empty list). */
export async function listAttempts(ctx: Ctx, endpointId: string, deliveryId: string) {
  await oneDelivery(ctx, endpointId, deliveryId);
  return (await selectAttempts(ctx.db, ctx, endpointId, deliveryId)).map(presentAttempt);
}

/**
 * Up to `limit` attempts after attempt number `after` (0: from the first), oldest first, and whether
 * more follow. A delivery of another endpoint or merchant, or none at all, is 404.
 */
export async function listAttemptPage(ctx: Ctx, endpointId: string, deliveryId: string, after: number, limit: number) {
  await oneDelivery(ctx, endpointId, deliveryId);
  const rows = await selectAttemptsAfter(ctx.db, ctx, endpointId, deliveryId, after, limit + 1);
  return { items: rows.slice(0, limit).map(presentAttempt), more: rows.length > limit };
}

/** A new delivery of the same event (same event id: receivers de-duplicate by it). */
export async function resendDelivery(ctx: Ctx, endpointId: string, deliveryId: string) {
  const original = await oneDelivery(ctx, endpointId, deliveryId);
  const id = await inTransaction(ctx.db, async (trx) => {
    // Locked so that a change of what the endpoint takes cannot pass between the check and the insert.
    const endpoint = await selectEndpointForShare(trx, ctx, endpointId);
    if (!endpoint) throw notFound('webhook endpoint');
    const event = await selectEventTarget(trx, ctx, original.event_id);
    const refusal = untakenEvent(endpoint, event);
    if (refusal) throw new AppError('invalid_state', refusal);
    return insertDelivery(trx, ctx, { endpoint_id: endpointId, event_id: original.event_id, resent_from: original.id });
  });
  return oneDelivery(ctx, endpointId, id);
}

/** Why the endpoint no longer takes this event (its events or location_ids changed since), or null. */
function untakenEvent(endpoint: Pick<EndpointRow, 'events' | 'location_ids'>, event: { type: string; location_id: string | null }): string | null {
  if (event.type === 'ping') return null;
  if (!endpoint.events.includes(event.type)) return `This endpoint no longer takes ${event.type} events: add the type to its events to resend this delivery.`;
  if (event.location_id !== null && endpoint.location_ids !== null && !endpoint.location_ids.includes(event.location_id))
    return `The event is about location ${event.location_id}, which is not in this endpoint's location_ids: add it to resend this delivery.`;
  return null;
}

/**
 * A disabled endpoint gets nothing raised while it is disabled (contract §7): a ping asked for then
 * is refused, not kept for when it is enabled (it was delivered then, with the old timestamp).
 */
const disabledForTest = () =>
  new AppError(
    'invalid_state',
    'This endpoint is disabled: enable it, then send the test event (a disabled endpoint gets nothing raised while it is disabled).',
  );

/**
 * Sends a `ping` event to this endpoint only; `beforeSend` runs once the endpoint is known to be the
 * merchant's and enabled (the portal's throttle: a refused test counts nothing).
 */
export async function sendTestEvent(ctx: Ctx, endpointId: string, beforeSend?: () => Promise<void>) {
  const endpoint = await getEndpoint(ctx, endpointId);
  if (endpoint.status === 'disabled') throw disabledForTest();
  await beforeSend?.();
  return inTransaction(ctx.db, async (trx) => {
    // Locked: a disable waits for this commit, so the ping is raised while the endpoint takes it.
    const locked = await selectEndpointForShare(trx, ctx, endpointId);
    if (!locked) throw notFound('webhook endpoint');
    if (locked.status === 'disabled') throw disabledForTest();
    const eventId = await emitEvent(trx, {
      merchantId: ctx.merchantId,
      type: 'ping',
      locationId: null,
      object: { endpoint_id: endpoint.id, message: 'This is a test event from the merchant integration API.' },
      onlyEndpointId: endpoint.id,
    });
    return oneDelivery({ ...ctx, db: trx }, endpointId, await deliveryOfEvent(trx, ctx, eventId));
  });
}

/** Deletes the endpoint with its deliveries and their attempts; events stay (other endpoints, the feed). */
export async function deleteEndpoint(ctx: Ctx, id: string): Promise<Endpoint> {
  const row = await deleteEndpointRow(ctx.db, ctx, id);
  if (!row) throw notFound('webhook endpoint');
  return presentEndpoint(row);
}
