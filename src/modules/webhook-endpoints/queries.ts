// Webhook endpoint and delivery statements (the portal's insight queries are in insight.ts). Every
// one takes the merchant's scope and filters by it.
import { sql, type UpdateObject } from 'kysely';
import type { Database } from '../../db/database.ts';
import type { DB } from '../../db/schema.ts';
import { merchantRow, ofMerchant, type Scope } from '../../db/scope.ts';
import { endpointTakes } from '../../events/outbox.ts';
import { readPage, type PageRequest } from '../../http/paging.ts';

const COLUMNS = ['id', 'url', 'description', 'events', 'location_ids', 'status', 'disabled_reason', 'disabled_at', 'created_at', 'updated_at'] as const;

export function insertEndpoint(
  db: Database,
  scope: Scope,
  endpoint: { url: string; description: string | null; events: string[]; location_ids: string[] | null; signing_secret: string },
) {
  return db.insertInto('webhook_endpoints').values(merchantRow(scope, endpoint)).returning(COLUMNS).executeTakeFirstOrThrow();
}

/**
 * How many endpoints the merchant has, once no other transaction of this merchant can add one: the
 * count holds until this transaction ends (an advisory lock on the merchant, taken here).
 */
export async function countEndpointsLocked(trx: Database, scope: Scope): Promise<number> {
  await sql`select pg_advisory_xact_lock(hashtextextended(${`webhook_endpoints:${scope.merchantId}`}, 0))`.execute(trx);
  const row = await trx
    .selectFrom('webhook_endpoints')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where(ofMerchant('webhook_endpoints', scope))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Newest first. */
export function selectEndpoints(db: Database, scope: Scope) {
  return db
    .selectFrom('webhook_endpoints')
    .select(COLUMNS)
    .where(ofMerchant('webhook_endpoints', scope))
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
}

/** A page in list order, (updated_at, id) ascending, as every list of the integration API (the operator API's list). */
export function selectEndpointPage(db: Database, scope: Scope, page: PageRequest, updatedAfter?: string) {
  return readPage(db.selectFrom('webhook_endpoints').select(COLUMNS).where(ofMerchant('webhook_endpoints', scope)), 'webhook_endpoints', page, updatedAfter);
}

export function selectEndpoint(db: Database, scope: Scope, id: string) {
  return db.selectFrom('webhook_endpoints').select(COLUMNS).where(ofMerchant('webhook_endpoints', scope)).where('id', '=', id).executeTakeFirst();
}

export type EndpointRow = NonNullable<Awaited<ReturnType<typeof selectEndpoint>>>;

/** The endpoint, its row locked against a concurrent change of what it takes until the transaction ends. */
export function selectEndpointForShare(db: Database, scope: Scope, id: string) {
  return db.selectFrom('webhook_endpoints').select(COLUMNS).where(ofMerchant('webhook_endpoints', scope)).where('id', '=', id).forShare().executeTakeFirst();
}

/** An event's type and location (what decides whether an endpoint takes it). */
export function selectEventTarget(db: Database, scope: Scope, eventId: string) {
  return db.selectFrom('events').select(['type', 'location_id']).where(ofMerchant('events', scope)).where('id', '=', eventId).executeTakeFirstOrThrow();
}

/**
 * Ends the endpoint's pending deliveries of events it no longer takes (its `events` or
 * `location_ids` changed): `failed`, with no further attempt. A ping (the endpoint's test) is always
 * taken. An attempt in flight still records its outcome, but no longer settles the delivery.
 */
export async function endUntakenDeliveries(db: Database, scope: Scope, endpointId: string): Promise<void> {
  await sql`
    update webhook_deliveries d
       set status = 'failed', locked_until = null, next_attempt_at = null, updated_at = clock_timestamp()
      from events ev, webhook_endpoints ep
     where d.merchant_id = ${scope.merchantId} and d.endpoint_id = ${endpointId} and d.status = 'pending'
       and ev.id = d.event_id and ep.id = d.endpoint_id
       and ev.type <> 'ping'
       and not ${endpointTakes('ep', 'ev')}`.execute(db);
}

export function selectSigningSecret(db: Database, scope: Scope, id: string) {
  return db.selectFrom('webhook_endpoints').select('signing_secret').where(ofMerchant('webhook_endpoints', scope)).where('id', '=', id).executeTakeFirst();
}

export function updateEndpointRow(db: Database, scope: Scope, id: string, set: UpdateObject<DB, 'webhook_endpoints'>) {
  return db
    .updateTable('webhook_endpoints')
    .set({ ...set, updated_at: sql`clock_timestamp()` })
    .where(ofMerchant('webhook_endpoints', scope))
    .where('id', '=', id)
    .returning(COLUMNS)
    .executeTakeFirst();
}

/**
 * The columns a status change sets: disabling records that it was done by hand (`manual`; a
 * receiver's 410 records `gone`, src/events/worker.ts) unless the endpoint was disabled already,
 * which keeps the first reason; enabling clears the reason.
 */
export function statusChange(status: 'enabled' | 'disabled' | undefined): UpdateObject<DB, 'webhook_endpoints'> {
  if (status === 'enabled') return { status, disabled_reason: null, disabled_at: null };
  if (status === 'disabled') {
    return {
      status,
      disabled_reason: sql<'manual'>`case when status = 'enabled' then 'manual' else disabled_reason end`,
      disabled_at: sql<Date>`case when status = 'enabled' then clock_timestamp() else disabled_at end`,
    };
  }
  return {};
}

/** The new secret signs from now on; the old one keeps signing beside it for 24 hours. */
export function rotateSecret(db: Database, scope: Scope, id: string, signingSecret: string) {
  return updateEndpointRow(db, scope, id, {
    previous_signing_secret: sql<string>`signing_secret`,
    previous_secret_expires_at: sql<Date>`clock_timestamp() + interval '24 hours'`,
    signing_secret: signingSecret,
  });
}

/** The endpoint goes with its deliveries and their attempts (foreign keys cascade). */
export function deleteEndpointRow(db: Database, scope: Scope, id: string) {
  return db.deleteFrom('webhook_endpoints').where(ofMerchant('webhook_endpoints', scope)).where('id', '=', id).returning(COLUMNS).executeTakeFirst();
}

/** The merchant's webhook deliveries as `d`: where each statement starts that reads deliveries with their event or endpoint. */
export function merchantDeliveries(db: Database, scope: Scope) {
  return db.selectFrom('webhook_deliveries as d').where(ofMerchant('d', scope));
}

function deliveries(db: Database, scope: Scope, endpointId: string) {
  return merchantDeliveries(db, scope)
    .innerJoin('events as e', 'e.id', 'd.event_id')
    .select(['d.id', 'd.event_id', 'e.type as event_type', 'd.status', 'd.attempts', 'd.last_status_code', 'd.next_attempt_at', 'd.created_at', 'd.updated_at'])
    .where('d.endpoint_id', '=', endpointId);
}

export type DeliveryRow = NonNullable<Awaited<ReturnType<typeof selectDelivery>>>;

export function selectDeliveryPage(db: Database, scope: Scope, endpointId: string, page: PageRequest, updatedAfter?: string) {
  return readPage(deliveries(db, scope, endpointId), 'd', page, updatedAfter);
}

export function selectDelivery(db: Database, scope: Scope, endpointId: string, deliveryId: string) {
  return deliveries(db, scope, endpointId).where('d.id', '=', deliveryId).executeTakeFirst();
}

function attempts(db: Database, scope: Scope, endpointId: string, deliveryId: string) {
  return db
    .selectFrom('webhook_attempts as a')
    .innerJoin('webhook_deliveries as d', 'd.id', 'a.delivery_id')
    .select(['a.id', 'a.attempt', 'a.status_code', 'a.duration_ms', 'a.response_excerpt', 'a.error', 'a.created_at'])
    .where(ofMerchant('d', scope))
    .where('d.endpoint_id', '=', endpointId)
    .where('d.id', '=', deliveryId)
    .orderBy('a.attempt');
}

/** Oldest first. */
export function selectAttempts(db: Database, scope: Scope, endpointId: string, deliveryId: string) {
  return attempts(db, scope, endpointId, deliveryId).execute();
}

/** Up to `rows` attempts after attempt number `after` (0: from the first), oldest first. */
export function selectAttemptsAfter(db: Database, scope: Scope, endpointId: string, deliveryId: string, after: number, rows: number) {
  return attempts(db, scope, endpointId, deliveryId).where('a.attempt', '>', after).limit(rows).execute();
}

export async function insertDelivery(db: Database, scope: Scope, delivery: { endpoint_id: string; event_id: string; resent_from: string | null }) {
  const row = await db.insertInto('webhook_deliveries').values(merchantRow(scope, delivery)).returning('id').executeTakeFirstOrThrow();
  return row.id;
}

/** The delivery an event made to one endpoint (a ping goes to one endpoint only). */
export async function deliveryOfEvent(db: Database, scope: Scope, eventId: string) {
  const row = await db
    .selectFrom('webhook_deliveries')
    .select('id')
    .where(ofMerchant('webhook_deliveries', scope))
    .where('event_id', '=', eventId)
    .executeTakeFirstOrThrow();
  return row.id;
}

// ——— What the portal shows (insight.ts): health, the delivery log with the latest error, detail ———

/** Per endpoint: deliveries of the last 24 hours, delivered and failed. */
export function selectHealthCounts(db: Database, scope: Scope) {
  return db
    .selectFrom('webhook_deliveries')
    .select((eb) => [
      'endpoint_id',
      eb.fn.countAll<string>().as('total'),
      sql<string>`count(*) filter (where status = 'delivered')`.as('delivered'),
      sql<string>`count(*) filter (where status = 'failed')`.as('failed'),
    ])
    .where(ofMerchant('webhook_deliveries', scope))
    .where('created_at', '>', sql<Date>`clock_timestamp() - interval '24 hours'`)
    .groupBy('endpoint_id')
    .execute();
}

/** Per endpoint: its latest failed attempt (no answer, or not 2xx). */
export async function selectLatestFailures(db: Database, scope: Scope) {
  const { rows } = await sql<{
    endpoint_id: string;
    delivery_id: string;
    created_at: Date;
    status_code: number | null;
    error: string | null;
    response_excerpt: string | null;
  }>`
    select distinct on (d.endpoint_id) d.endpoint_id, a.delivery_id, a.created_at, a.status_code, a.error, a.response_excerpt
      from webhook_attempts a join webhook_deliveries d on d.id = a.delivery_id
     where ${ofMerchant('a', scope)} and (a.status_code is null or a.status_code not between 200 and 299)
     order by d.endpoint_id, a.created_at desc, a.id desc`.execute(db);
  return rows;
}

/** Deliveries with their endpoint's URL, where they came from and the latest attempt's error. */
function portalDeliveries(db: Database, scope: Scope) {
  return merchantDeliveries(db, scope)
    .innerJoin('events as e', 'e.id', 'd.event_id')
    .innerJoin('webhook_endpoints as w', 'w.id', 'd.endpoint_id')
    .select([
      'd.id',
      'd.event_id',
      'e.type as event_type',
      'd.status',
      'd.attempts',
      'd.last_status_code',
      'd.next_attempt_at',
      'd.created_at',
      'd.updated_at',
      'd.resent_from',
      'd.endpoint_id',
      'w.url as endpoint_url',
      (eb) =>
        eb.selectFrom('webhook_attempts as a').select('a.error').whereRef('a.delivery_id', '=', 'd.id').orderBy('a.attempt', 'desc').limit(1).as('last_error'),
    ]);
}

export type PortalDeliveryRow = NonNullable<Awaited<ReturnType<typeof selectPortalDelivery>>>;

/** Newest first. */
/** An endpoint's deliveries newest first, from just before `before` (the last one shown) when given. */
export function selectPortalDeliveries(db: Database, scope: Scope, endpointId: string, limit: number, before?: { at: Date; id: string }) {
  return portalDeliveries(db, scope)
    .where('d.endpoint_id', '=', endpointId)
    .$if(before !== undefined, (q) => q.where(sql<boolean>`(d.created_at, d.id) < (${before!.at}, ${before!.id}::uuid)`))
    .orderBy('d.created_at', 'desc')
    .orderBy('d.id', 'desc')
    .limit(limit)
    .execute();
}

export function selectPortalDelivery(db: Database, scope: Scope, endpointId: string, deliveryId: string) {
  return portalDeliveries(db, scope).where('d.endpoint_id', '=', endpointId).where('d.id', '=', deliveryId).executeTakeFirst();
}

/** Failed, or retrying after a failed attempt, newest first. */
export function selectFailingDeliveries(db: Database, scope: Scope, limit: number) {
  return portalDeliveries(db, scope)
    .where((eb) => eb.or([eb('d.status', '=', 'failed'), eb.and([eb('d.status', '=', 'pending'), eb('d.attempts', '>', 0)])]))
    .orderBy('d.updated_at', 'desc')
    .orderBy('d.id', 'desc')
    .limit(limit)
    .execute();
}

/** How many deliveries are failed or retrying, counted up to `cap` (the count stops there). */
export async function countFailingDeliveries(db: Database, scope: Scope, cap: number): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    select count(*)::int as n from (
      select 1 from webhook_deliveries d
       where ${ofMerchant('d', scope)} and (d.status = 'failed' or (d.status = 'pending' and d.attempts > 0))
       limit ${cap}) failing`.execute(db);
  return rows[0].n;
}

/** Every attempt of a delivery with the request it sent, oldest first. */
export function selectAttemptRequests(db: Database, scope: Scope, deliveryId: string) {
  return db
    .selectFrom('webhook_attempts')
    .select(['id', 'attempt', 'created_at', 'status_code', 'duration_ms', 'error', 'response_excerpt', 'request_headers', 'request_body'])
    .where(ofMerchant('webhook_attempts', scope))
    .where('delivery_id', '=', deliveryId)
    .orderBy('attempt')
    .execute();
}
