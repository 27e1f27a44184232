// Webhook endpoint and delivery statements (the portal's insight queries are in insight.ts). Every
// one takes the merchant's scope and filters by it.
import { sql, type UpdateObject } from 'kysely';
import type { Database } from '../../db/database.ts';
import type { DB } from '../../db/schema.ts';
import { ofMerchant, type Scope } from '../../db/scope.ts';
import { readPage, type PageRequest } from '../../http/paging.ts';

const COLUMNS = ['id', 'url', 'description', 'events', 'location_ids', 'status', 'created_at', 'updated_at'] as const;

export function insertEndpoint(
  db: Database,
  scope: Scope,
  endpoint: { url: string; description: string | null; events: string[]; location_ids: string[] | null; signing_secret: string },
) {
  return db
    .insertInto('webhook_endpoints')
    .values({ merchant_id: scope.merchantId, ...endpoint })
    .returning(COLUMNS)
    .executeTakeFirstOrThrow();
}

/** Newest first. */
export function selectEndpoints(db: Database, scope: Scope) {
  return db.selectFrom('webhook_endpoints').select(COLUMNS).where(ofMerchant('webhook_endpoints', scope)).orderBy('created_at', 'desc').orderBy('id', 'desc').execute();
}

export function selectEndpoint(db: Database, scope: Scope, id: string) {
  return db.selectFrom('webhook_endpoints').select(COLUMNS).where(ofMerchant('webhook_endpoints', scope)).where('id', '=', id).executeTakeFirst();
}

export type EndpointRow = NonNullable<Awaited<ReturnType<typeof selectEndpoint>>>;

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

function deliveries(db: Database, scope: Scope, endpointId: string) {
  return db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('events as e', 'e.id', 'd.event_id')
    .select(['d.id', 'd.event_id', 'e.type as event_type', 'd.status', 'd.attempts', 'd.last_status_code', 'd.next_attempt_at', 'd.created_at', 'd.updated_at'])
    .where(ofMerchant('d', scope))
    .where('d.endpoint_id', '=', endpointId);
}

export type DeliveryRow = NonNullable<Awaited<ReturnType<typeof selectDelivery>>>;

export function selectDeliveryPage(db: Database, scope: Scope, endpointId: string, page: PageRequest) {
  return readPage(deliveries(db, scope, endpointId), 'd', page);
}

export function selectDelivery(db: Database, scope: Scope, endpointId: string, deliveryId: string) {
  return deliveries(db, scope, endpointId).where('d.id', '=', deliveryId).executeTakeFirst();
}

/** Oldest first. */
export function selectAttempts(db: Database, scope: Scope, endpointId: string, deliveryId: string) {
  return db
    .selectFrom('webhook_attempts as a')
    .innerJoin('webhook_deliveries as d', 'd.id', 'a.delivery_id')
    .select(['a.id', 'a.attempt', 'a.status_code', 'a.duration_ms', 'a.response_excerpt', 'a.error', 'a.created_at'])
    .where(ofMerchant('d', scope))
    .where('d.endpoint_id', '=', endpointId)
    .where('d.id', '=', deliveryId)
    .orderBy('a.attempt')
    .execute();
}

export async function insertDelivery(db: Database, scope: Scope, delivery: { endpoint_id: string; event_id: string; resent_from: string | null }) {
  const row = await db
    .insertInto('webhook_deliveries')
    .values({ merchant_id: scope.merchantId, ...delivery })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** The delivery an event made to one endpoint (a ping goes to one endpoint only). */
export async function deliveryOfEvent(db: Database, scope: Scope, eventId: string) {
  const row = await db.selectFrom('webhook_deliveries').select('id').where(ofMerchant('webhook_deliveries', scope)).where('event_id', '=', eventId).executeTakeFirstOrThrow();
  return row.id;
}
