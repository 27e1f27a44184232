// The webhook delivery worker. Deliveries are claimed with a lease in a short transaction
// (FOR UPDATE SKIP LOCKED: several workers never take the same one), posted outside any
// transaction, and settled in another short transaction only while the lease is still ours.
// A worker that dies leaves its lease to expire; the delivery is then retried (at least once).
import { sql } from 'kysely';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import { signatureHeader } from './signer.ts';
import { createTransport, type PostResult } from './transport.ts';

export interface Worker {
  stop(): Promise<void>;
  /** Run one claim-and-deliver round now (tests). Resolves with the number of deliveries made. */
  tick(): Promise<number>;
}

const BATCH = 20;

interface Claimed {
  id: string;
  attempts: number;
  locked_until: Date;
  merchant_id: string;
  endpoint_id: string;
  event_id: string;
}

export function startWorker(db: Database, config: Config, log: Logger, options: { autoStart?: boolean } = {}): Worker {
  const transport = createTransport({ timeoutMs: config.webhookTimeoutMs, allowPrivate: config.webhookAllowPrivateUrls });
  // Long enough for one post to finish or time out; a dead worker's deliveries come back after it.
  const leaseMs = 2 * config.webhookTimeoutMs + 5_000;
  let stopped = false;
  let running: Promise<number> | null = null;
  let timer: NodeJS.Timeout | null = null;

  async function claim(): Promise<Claimed[]> {
    return db.transaction().execute(async (trx) => {
      const { rows } = await sql<Claimed>`
        update webhook_deliveries d
           set locked_until = clock_timestamp() + ${`${leaseMs} milliseconds`}::interval,
               attempts = d.attempts + 1,
               updated_at = clock_timestamp()
         where d.id in (
           select d2.id from webhook_deliveries d2
             join webhook_endpoints e on e.id = d2.endpoint_id
            where d2.status = 'pending'
              and d2.next_attempt_at <= clock_timestamp()
              and (d2.locked_until is null or d2.locked_until < clock_timestamp())
              and e.status = 'enabled'
            order by d2.next_attempt_at, d2.id
            limit ${BATCH}
            for update of d2 skip locked)
        returning d.id, d.attempts, d.locked_until, d.merchant_id, d.endpoint_id, d.event_id`.execute(trx);
      return rows;
    });
  }

  async function deliverAll(claimed: Claimed[]) {
    const eventIds = [...new Set(claimed.map((c) => c.event_id))];
    const endpointIds = [...new Set(claimed.map((c) => c.endpoint_id))];
    const [events, endpoints] = await Promise.all([
      db.selectFrom('events').selectAll().where('id', 'in', eventIds).execute(),
      db.selectFrom('webhook_endpoints').selectAll().where('id', 'in', endpointIds).execute(),
    ]);
    const eventById = new Map(events.map((e) => [e.id, e]));
    const endpointById = new Map(endpoints.map((e) => [e.id, e]));
    await Promise.all(
      claimed.map(async (c) => {
        const event = eventById.get(c.event_id)!;
        const endpoint = endpointById.get(c.endpoint_id)!;
        const body = JSON.stringify({
          id: event.id,
          type: event.type,
          created_at: event.created_at.toISOString(),
          merchant_id: event.merchant_id,
          location_id: event.location_id,
          data: { object: narrow(event.type, (event.payload as { object: unknown }).object, endpoint.location_ids) },
        });
        const timestamp = Math.floor(Date.now() / 1000);
        const secrets = [endpoint.signing_secret];
        if (endpoint.previous_signing_secret && endpoint.previous_secret_expires_at && endpoint.previous_secret_expires_at > new Date()) {
          secrets.push(endpoint.previous_signing_secret);
        }
        const result = await transport.post(
          endpoint.url,
          {
            'content-type': 'application/json',
            'user-agent': 'MerchantIntegrationAPI-Webhooks/1.0',
            'x-service-webhook-id': event.id,
            'x-service-webhook-timestamp': String(timestamp),
            'x-service-webhook-event': event.type,
            'x-service-webhook-signature': signatureHeader(secrets, timestamp, body),
          },
          body,
        );
        await settle(c, result);
      }),
    );
  }

  async function settle(c: Claimed, r: PostResult) {
    const ok = r.statusCode !== null && r.statusCode >= 200 && r.statusCode < 300;
    const gone = r.statusCode === 410;
    const retryIndex = c.attempts - 1; // attempts already counts this one
    const retryIn = config.webhookRetrySchedule[retryIndex];
    const status = ok ? 'delivered' : gone || retryIn === undefined ? 'failed' : 'pending';
    await db.transaction().execute(async (trx) => {
      const updated = await trx
        .updateTable('webhook_deliveries')
        .set({
          status,
          last_status_code: r.statusCode,
          locked_until: null,
          next_attempt_at: status === 'pending' ? sql<Date>`clock_timestamp() + ${`${retryIn} seconds`}::interval` : null,
          updated_at: sql`clock_timestamp()`,
        })
        .where('id', '=', c.id)
        .where('locked_until', '=', c.locked_until)
        .returning('id')
        .executeTakeFirst();
      await trx
        .insertInto('webhook_attempts')
        .values({ merchant_id: c.merchant_id, delivery_id: c.id, attempt: c.attempts, status_code: r.statusCode, duration_ms: r.durationMs, response_excerpt: r.excerpt, error: r.error })
        .execute();
      if (gone && updated) {
        await trx.updateTable('webhook_endpoints').set({ status: 'disabled', updated_at: sql`clock_timestamp()` }).where('id', '=', c.endpoint_id).execute();
      }
    });
    if (!ok) log.info({ delivery: c.id, attempt: c.attempts, status: r.statusCode, error: r.error, next: status }, 'webhook attempt failed');
  }

  async function round(): Promise<number> {
    let total = 0;
    for (;;) {
      const claimed = await claim();
      if (claimed.length === 0) break;
      await deliverAll(claimed);
      total += claimed.length;
      if (stopped) break;
    }
    return total;
  }

  function tick(): Promise<number> {
    if (!running) {
      running = round()
        .catch((err) => {
          log.error({ err }, 'webhook worker round failed');
          return 0;
        })
        .finally(() => {
          running = null;
        });
    }
    return running;
  }

  function schedule() {
    if (stopped) return;
    timer = setTimeout(async () => {
      await tick();
      schedule();
    }, config.workerPollMs);
  }
  if (options.autoStart !== false) schedule();

  return {
    tick,
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
      await transport.close();
    },
  };
}

/** Product payloads carry inventory; an endpoint with a location filter sees only its locations. */
function narrow(type: string, object: unknown, locationIds: string[] | null): unknown {
  if (!locationIds || !type.startsWith('product.') || !object || typeof object !== 'object') return object;
  const product = object as { variants?: { inventory?: { fulfillment_location_id: string }[] }[] };
  return {
    ...product,
    variants: (product.variants ?? []).map((v) => ({ ...v, inventory: (v.inventory ?? []).filter((i) => locationIds.includes(i.fulfillment_location_id)) })),
  };
}
