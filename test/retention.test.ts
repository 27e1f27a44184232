// The retention job deletes exactly what is past each window (rows made through the API, then
// backdated) and nothing else, in bounded batches.
import pino from 'pino';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { startWorker } from '../src/events/worker.ts';
import { purgeExpired, retentionSteps, startRetention } from '../src/maintenance/retention.ts';
import { json, startTestApp, type ResponseBody, type TestApp, type TestMerchant } from './helpers.ts';
import { startReceiver, type Receiver } from './receiver.ts';

let t: TestApp;
let m: TestMerchant;
let receiver: Receiver;
const log = pino({ level: 'silent' });

beforeAll(async () => {
  t = await startTestApp({ eventRetentionDays: 30, deliveryRetentionDays: 20, idempotencyRetentionHours: 48 });
  m = await t.merchant({ locations: 1 });
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await t?.close();
});

const ago = (interval: string) => sql<Date>`clock_timestamp() - ${interval}::interval`;

async function ids(table: 'events' | 'webhook_deliveries' | 'portal_sessions', merchantId = m.id) {
  return (await t.database.db.selectFrom(table).select('id').where('merchant_id', '=', merchantId).execute()).map((r) => r.id).sort();
}

describe('retention job', () => {
  it('deletes only events, deliveries with their attempts, idempotency records and sessions past their windows', async () => {
    const db = t.database.db;
    const key = await m.key(['products.write', 'products.read', 'inventory.adjust']);
    const ep = json(await m.op('POST', '/webhook-endpoints', { url: receiver.url, events: ['product.created'] }), 201, 'createWebhookEndpoint').data;
    const products: ResponseBody<'createProduct', 201>['data'][] = [];
    for (let i = 0; i < 4; i++)
      products.push(json(await t.api(key, 'POST', '/products', { title: `P${i}`, variants: [{ sku: `RET-${i}`, price: 1 }] }), 201, 'createProduct').data);
    // Two events no endpoint subscribes to: no delivery references them.
    await t.api(key, 'PATCH', `/products/${products[0].id}`, { title: 'Renamed 0' });
    await t.api(key, 'PATCH', `/products/${products[1].id}`, { title: 'Renamed 1' });
    const worker = startWorker(db, t.config, log, { autoStart: false });
    expect(await worker.tick()).toBe(4);
    await worker.stop();

    const deliveries = await db
      .selectFrom('webhook_deliveries as d')
      .innerJoin('events as e', 'e.id', 'd.event_id')
      .select(['d.id', 'd.event_id', 'e.payload'])
      .where('d.endpoint_id', '=', ep.id)
      .execute();
    const byProduct = (i: number) => deliveries.find((d) => (d.payload as { object: { id: string } }).object.id === products[i].id)!;
    const [d0, d1, d2, d3] = [0, 1, 2, 3].map(byProduct);
    const updates = await db
      .selectFrom('events')
      .select('id')
      .where('merchant_id', '=', m.id)
      .where('type', '=', 'product.updated')
      .orderBy('created_at')
      .execute();
    expect(updates).toHaveLength(2);
    // A resend of d3's event, leased by a (pretend) worker right now.
    const resent = json(await m.op('POST', `/webhook-endpoints/${ep.id}/deliveries/${d3.id}/resend`), 200, 'resendWebhookDelivery').data;

    /** Backdates a row's created_at by `age` (a PostgreSQL interval). */
    const backdate = (table: 'events' | 'webhook_deliveries' | 'idempotency_keys', column: 'id' | 'key', value: string, age: string) =>
      db
        .updateTable(table)
        .set({ created_at: ago(age) })
        .where('merchant_id', '=', m.id)
        .where(column, '=', value)
        .execute();
    const setEvent = (id: string, age: string) => backdate('events', 'id', id, age);
    const setDelivery = (id: string, age: string) => backdate('webhook_deliveries', 'id', id, age);
    await setEvent(d0.event_id, '31 days');
    await setDelivery(d0.id, '21 days'); // both go
    await setEvent(d1.event_id, '31 days');
    await setDelivery(d1.id, '19 days'); // the delivery keeps its event
    await setEvent(d2.event_id, '29 days');
    await setDelivery(d2.id, '20 days 1 minute'); // delivery goes, event stays
    await setEvent(updates[0].id, '30 days 1 minute'); // goes
    await setEvent(updates[1].id, '29 days 23 hours'); // stays
    await setDelivery(resent.id, '25 days');
    await db
      .updateTable('webhook_deliveries')
      .set({ locked_until: sql<Date>`clock_timestamp() + interval '1 hour'` })
      .where('id', '=', resent.id)
      .execute();

    /** One unit more of RET-0, under an Idempotency-Key. */
    const addOne = (idempotencyKey: string) =>
      t.api(
        key,
        'POST',
        '/inventory/adjustments',
        { adjustments: [{ sku: 'RET-0', fulfillment_location_id: m.locations[0], adjustment: 1 }] },
        { 'idempotency-key': idempotencyKey },
      );
    for (const k of ['old', 'recent']) {
      const res = await addOne(k);
      expect(res.statusCode).toBe(200);
    }
    await backdate('idempotency_keys', 'key', 'old', '48 hours 1 minute');
    await backdate('idempotency_keys', 'key', 'recent', '47 hours 59 minutes');

    json(await m.op('POST', '/users', { email: 'retention@acme.test', password: 'correct horse battery' }), 201, 'createPortalUser');
    for (const ip of ['10.9.0.1', '10.9.0.2']) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/portal/api/login',
        payload: { email: 'retention@acme.test', password: 'correct horse battery' },
        remoteAddress: ip,
      });
      expect(res.statusCode).toBe(200);
    }
    const sessions = await ids('portal_sessions');
    await db
      .updateTable('portal_sessions')
      .set({ expires_at: ago('1 second') })
      .where('id', '=', sessions[0])
      .execute();

    const eventsBefore = await ids('events');
    const attemptsOf = async (deliveryId: string) =>
      Number(
        (
          await db
            .selectFrom('webhook_attempts')
            .select(sql<string>`count(*)`.as('n'))
            .where('delivery_id', '=', deliveryId)
            .executeTakeFirstOrThrow()
        ).n,
      );
    expect(await attemptsOf(d0.id)).toBe(1);

    const job = startRetention(db, t.config, log, { autoStart: false });
    expect(await job.runNow()).toEqual({ portal_sessions: 1, idempotency_keys: 1, webhook_deliveries: 2, events: 2, request_log: 0 });
    await job.stop();

    expect(await ids('webhook_deliveries')).toEqual([d1.id, d3.id, resent.id].sort());
    expect(await ids('events')).toEqual(eventsBefore.filter((id) => id !== d0.event_id && id !== updates[0].id).sort());
    expect(await attemptsOf(d0.id)).toBe(0);
    expect(await attemptsOf(d2.id)).toBe(0);
    expect(await attemptsOf(d1.id)).toBe(1);
    expect((await db.selectFrom('idempotency_keys').select('key').where('merchant_id', '=', m.id).execute()).map((r) => r.key)).toEqual(['recent']);
    expect(await ids('portal_sessions')).toEqual([sessions[1]]);

    // What stayed still works: the kept key replays, the purged one applies again.
    const replay = await addOne('recent');
    expect(replay.headers['idempotent-replayed']).toBe('true');
    const again = await addOne('old');
    expect(again.headers['idempotent-replayed']).toBeUndefined();
    expect(json(again, 200, 'adjustInventory').data[0].on_hand).toBe(3);
    // A second run finds nothing more.
    expect(await purgeExpired(db, retentionSteps(t.config), log)).toEqual({
      portal_sessions: 0,
      idempotency_keys: 0,
      webhook_deliveries: 0,
      events: 0,
      request_log: 0,
    });
  });

  it('purges in batches of at most 1,000 rows per statement', async () => {
    const db = t.database.db;
    await sql`insert into idempotency_keys (merchant_id, method, path, key, request_hash, status_code, body, created_at)
              select ${m.id}::uuid, 'POST', '/batch', 'k' || g, 'h', 200, '{}'::jsonb, clock_timestamp() - interval '3 days'
                from generate_series(1, 2500) g`.execute(db);
    t.database.queries.length = 0;
    expect(await purgeExpired(db, retentionSteps(t.config), log)).toEqual({
      portal_sessions: 0,
      idempotency_keys: 2500,
      webhook_deliveries: 0,
      events: 0,
      request_log: 0,
    });
    expect(t.database.queries.filter((q) => q.trimStart().startsWith('delete from idempotency_keys'))).toHaveLength(3);
  });

  it('refuses settings that would break the contract', () => {
    expect(() => loadConfig({ IDEMPOTENCY_RETENTION_HOURS: '23' })).toThrow(
      'IDEMPOTENCY_RETENTION_HOURS must be at least 24, but it is "23": fix or unset it.',
    );
    expect(() => loadConfig({ EVENT_RETENTION_DAYS: '0' })).toThrow('EVENT_RETENTION_DAYS must be at least 1, but it is "0": fix or unset it.');
    expect(loadConfig({})).toMatchObject({ eventRetentionDays: 30, deliveryRetentionDays: 30, idempotencyRetentionHours: 48, retentionIntervalMs: 600_000 });
  });
});
