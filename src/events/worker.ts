// The webhook delivery worker. Deliveries are claimed with a lease in a short transaction
// (FOR UPDATE SKIP LOCKED: several workers never take the same one), posted outside any
// transaction, and settled in another short transaction only while the lease is still ours.
// A worker that dies leaves its lease to expire; the delivery is then retried (at least once).
//
// Posts run concurrently and independently: each endpoint has at most WEBHOOK_ENDPOINT_CONCURRENCY
// posts in flight and the process at most WEBHOOK_CONCURRENCY, so a receiver that hangs until the
// timeout holds only its own slots and every other endpoint keeps flowing. The worker keeps up to
// one more cap's worth of each endpoint claimed and waiting, so a freed slot starts the next post
// at once (no claim round trip between posts) while the claim for the rows after runs beside it.
//
// When to look: a committed delivery wakes the worker at once (src/events/wake.ts: NOTIFY on
// PostgreSQL, PGlite's own LISTEN in process); a retry wakes it when it falls due (a timer of the
// worker that scheduled it); the poll every WORKER_POLL_MS is only the safety net for what nothing
// announces (another worker's expired lease, a notification lost with its connection).
import { sql, type Expression } from 'kysely';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import { eventEnvelope, type StoredEvent } from './envelope.ts';
import { webhookAttempts, webhookLatency } from '../metrics.ts';
import { signatureHeader } from './signer.ts';
import { createTransport, type PostResult } from './transport.ts';
import type { DeliveryWake } from './wake.ts';
import { RetryTimes } from './retry-times.ts';

/**
 * When a retry `seconds` from now falls due, in SQL: cut to the millisecond, not rounded as the
 * timestamptz(3) column would round it. A retry due at once, stored up to half a millisecond ahead,
 * was not yet due for a claim that came within that half millisecond (on PostgreSQL, a test
 * worker's tick() then stopped with the retry unsent).
 */
export const retryDue = (seconds: Expression<number>) => sql<Date>`date_trunc('milliseconds', clock_timestamp() + ${seconds} * interval '1 second')`;

/** The error of an attempt whose worker stopped or lost its database connection before recording it. */
export const LOST_ATTEMPT =
  'No outcome was recorded: the worker stopped or lost its database connection after taking this attempt, so the receiver may or may not have got it. It was retried after its lease ran out.';

export interface Worker {
  stop(): Promise<void>;
  /**
   * Claim and deliver until nothing is due and nothing is in flight (tests). Resolves with the
   * number of deliveries started meanwhile.
   */
  tick(): Promise<number>;
}

/** The event as posted: the stored row (src/events/envelope.ts). */
export type OutgoingEvent = StoredEvent;

/** What of the endpoint a post needs. */
export interface TargetEndpoint {
  url: string;
  location_ids: string[] | null;
  signing_secret: string;
  previous_signing_secret: string | null;
  previous_secret_expires_at: Date | null;
}

/** A delivery row's own columns, as claimed. */
interface DeliveryLease {
  id: string;
  /** When the delivery was written: the commit of its event, or a resend. */
  created_at: Date;
  attempts: number;
  locked_until: Date;
  merchant_id: string;
  endpoint_id: string;
}

/** A delivery this worker holds the lease on, with its event and endpoint. */
interface Claimed extends DeliveryLease {
  event: OutgoingEvent;
  endpoint: TargetEndpoint;
}

/** A finished post waiting to be recorded. */
interface Outcome {
  c: Claimed;
  r: PostResult;
  sent: { headers: Record<string, string>; body: string };
  status: 'delivered' | 'failed' | 'pending';
  /** Seconds until the next attempt (pending only). */
  retryIn: number | null;
  gone: boolean;
  resolve(): void;
  reject(err: unknown): void;
}

/** The claim query's row: the delivery, then its event (ev_) and endpoint (ep_) columns. */
interface ClaimRow extends DeliveryLease {
  ev_id: string;
  ev_type: string;
  ev_created_at: Date;
  ev_location_id: string | null;
  ev_payload: unknown;
  ev_position_xid: string;
  ev_seq: string;
  ep_url: string;
  ep_location_ids: string[] | null;
  ep_signing_secret: string;
  ep_previous_signing_secret: string | null;
  ep_previous_secret_expires_at: Date | null;
}

/** What is posted: the body and headers of one attempt (fresh timestamp and signature each time). */
export function webhookRequest(event: OutgoingEvent, endpoint: TargetEndpoint, now = new Date()): { headers: Record<string, string>; body: string } {
  const envelope = eventEnvelope(event, endpoint.location_ids);
  const body = JSON.stringify(envelope);
  const timestamp = Math.floor(now.getTime() / 1000);
  const secrets = [endpoint.signing_secret];
  if (endpoint.previous_signing_secret && endpoint.previous_secret_expires_at && endpoint.previous_secret_expires_at > now) {
    secrets.push(endpoint.previous_signing_secret);
  }
  const headers = {
    'content-type': 'application/json',
    'user-agent': 'MerchantIntegrationAPI-Webhooks/1.0',
    'x-service-webhook-id': event.id,
    'x-service-webhook-timestamp': String(timestamp),
    'x-service-webhook-event': event.type,
    'x-service-webhook-position': envelope.position,
    'x-service-webhook-signature': signatureHeader(secrets, timestamp, body),
  };
  return { headers, body };
}

export interface WorkerOptions {
  /** false: nothing runs until tick() (tests). */
  autoStart?: boolean;
  /** Wakes the worker when deliveries are committed; without it only the poll finds them. */
  wake?: DeliveryWake;
}

export function startWorker(db: Database, config: Config, log: Logger, options: WorkerOptions = {}): Worker {
  const perEndpoint = config.webhookEndpointConcurrency;
  const globalCap = config.webhookConcurrency;
  const transport = createTransport({ timeoutMs: config.webhookTimeoutMs, allowPrivate: config.webhookAllowPrivateUrls, connections: globalCap });
  // Long enough to wait for one post of the same endpoint and then make its own (each finishes or
  // times out); a dead worker's deliveries come back after it.
  const leaseMs = 2 * config.webhookTimeoutMs + 5_000;
  const autoStart = options.autoStart !== false;
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  // When the retries this worker scheduled fall due (src/events/retry-times.ts), and the one timer,
  // set for the earliest of them.
  const retriesDue = new RetryTimes();
  let retryAt = Infinity;
  let retryTimer: NodeJS.Timeout | null = null;

  // Posts in flight in this process, per endpoint and in all.
  const inFlight = new Map<string, number>();
  let posting = 0;
  // Claimed (leased) deliveries waiting for a slot of their endpoint, oldest first; at most one
  // cap's worth per endpoint, so each waits at most one post.
  const waiting = new Map<string, Claimed[]>();
  let waitingCount = 0;
  // Every post until its outcome is recorded (tick and stop wait for them).
  const posts = new Set<Promise<void>>();
  let started = 0;
  let settled = 0;
  const held = (endpointId: string) => (inFlight.get(endpointId) ?? 0) + (waiting.get(endpointId)?.length ?? 0);

  /**
   * Claims up to `free` due deliveries, at most 2 × perEndpoint of each endpoint held (posting or
   * waiting; endpoints already holding that many are skipped in the scan, so their backlog does not
   * hide other endpoints' rows).
   */
  async function claim(free: number): Promise<Claimed[]> {
    const endpoints = new Set([...inFlight.keys(), ...waiting.keys()]);
    const busy = JSON.stringify(Object.fromEntries([...endpoints].map((id) => [id, held(id)])));
    const maxHeld = 2 * perEndpoint;
    const scan = Math.min(free * 2 + 20, 500);
    // One statement (atomic without an explicit transaction): lock, lease, and return what to post.
    const { rows } = await sql<ClaimRow>`
      with busy as (
        select key::uuid as endpoint_id, value::int as in_flight from jsonb_each_text(${busy}::jsonb)
      ), due as (
        select d2.id, d2.endpoint_id, d2.next_attempt_at, d2.merchant_id, d2.attempts, d2.locked_until
          from webhook_deliveries d2
          join webhook_endpoints e on e.id = d2.endpoint_id
         where d2.status = 'pending'
           and d2.next_attempt_at <= clock_timestamp()
           and (d2.locked_until is null or d2.locked_until < clock_timestamp())
           and e.status = 'enabled'
           and d2.endpoint_id not in (select endpoint_id from busy where in_flight >= ${maxHeld})
         order by d2.next_attempt_at, d2.id
         limit ${scan}
         for update of d2 skip locked
      ), picked as (
        select r.id
          from (select due.*, row_number() over (partition by due.endpoint_id order by due.next_attempt_at, due.id) as rn from due) r
          left join busy b on b.endpoint_id = r.endpoint_id
         where r.rn <= ${maxHeld} - coalesce(b.in_flight, 0)
         order by r.next_attempt_at, r.id
         limit ${free}
      ), lost as (
        -- A lease that ran out: the attempt it was taken for was posted (or not) by a worker that
        -- stopped or lost its connection before recording the outcome. It is logged as such, so the
        -- attempts list shows every attempt the count includes.
        insert into webhook_attempts (merchant_id, delivery_id, attempt, status_code, duration_ms, error)
        select due.merchant_id, due.id, due.attempts, null, 0, ${LOST_ATTEMPT}
          from due join picked on picked.id = due.id
         where due.locked_until is not null and due.attempts > 0
      )
      update webhook_deliveries d
         set locked_until = clock_timestamp() + ${`${leaseMs} milliseconds`}::interval,
             attempts = d.attempts + 1,
             updated_at = clock_timestamp()
        from picked, events ev, webhook_endpoints ep
       where d.id = picked.id and ev.id = d.event_id and ep.id = d.endpoint_id
      returning d.id, d.created_at, d.attempts, d.locked_until, d.merchant_id, d.endpoint_id,
                ev.id as ev_id, ev.type as ev_type, ev.created_at as ev_created_at, ev.location_id as ev_location_id, ev.payload as ev_payload, ev.position_xid as ev_position_xid, ev.seq as ev_seq,
                ep.url as ep_url, ep.location_ids as ep_location_ids, ep.signing_secret as ep_signing_secret,
                ep.previous_signing_secret as ep_previous_signing_secret, ep.previous_secret_expires_at as ep_previous_secret_expires_at`.execute(db);
    return rows.map((r) => ({
      id: r.id,
      created_at: r.created_at,
      attempts: r.attempts,
      locked_until: r.locked_until,
      merchant_id: r.merchant_id,
      endpoint_id: r.endpoint_id,
      event: {
        id: r.ev_id,
        type: r.ev_type,
        created_at: r.ev_created_at,
        merchant_id: r.merchant_id,
        location_id: r.ev_location_id,
        payload: r.ev_payload,
        position_xid: r.ev_position_xid,
        seq: r.ev_seq,
      },
      endpoint: {
        url: r.ep_url,
        location_ids: r.ep_location_ids,
        signing_secret: r.ep_signing_secret,
        previous_signing_secret: r.ep_previous_signing_secret,
        previous_secret_expires_at: r.ep_previous_secret_expires_at,
      },
    }));
  }

  /** Posts one claimed delivery, frees its slot as soon as the answer is in, then records the outcome. */
  async function deliver(c: Claimed) {
    let request: { headers: Record<string, string>; body: string };
    let result: PostResult;
    try {
      request = webhookRequest(c.event, c.endpoint);
      result = await transport.post(c.endpoint.url, request.headers, request.body);
    } finally {
      const n = (inFlight.get(c.endpoint_id) ?? 1) - 1;
      if (n > 0) inFlight.set(c.endpoint_id, n);
      else inFlight.delete(c.endpoint_id);
      posting--;
      startWaiting();
      if (autoStart) void kick();
    }
    await settle(c, result, request);
  }

  /** Records one attempt; resolves once it is written (its slot stays taken until then). */
  function settle(c: Claimed, r: PostResult, sent: { headers: Record<string, string>; body: string }): Promise<void> {
    const ok = r.statusCode !== null && r.statusCode >= 200 && r.statusCode < 300;
    const gone = r.statusCode === 410;
    const retryIndex = c.attempts - 1; // attempts already counts this one
    const retryIn = config.webhookRetrySchedule[retryIndex];
    const status: Outcome['status'] = ok ? 'delivered' : gone || retryIn === undefined ? 'failed' : 'pending';
    return new Promise((resolve, reject) => {
      outcomes.push({ c, r, sent, status, retryIn: status === 'pending' ? retryIn : null, gone, resolve, reject });
      if (!recording) void recordOutcomes();
    });
  }

  // Outcomes wait while one write is in flight and go together in the next: at a high rate one
  // statement records many attempts, at a low rate each is written at once.
  const outcomes: Outcome[] = [];
  let recording = false;

  async function recordOutcomes() {
    recording = true;
    while (outcomes.length > 0) {
      const batch = outcomes.splice(0, 500);
      try {
        await record(batch);
      } catch (err) {
        // One bad row must not cost the others their record: write them one by one.
        if (batch.length === 1) batch[0].reject(err);
        else for (const o of batch) await record([o]).catch(o.reject);
      }
    }
    recording = false;
  }

  /** One statement for the batch: settles each delivery still leased to us, logs every attempt, disables endpoints that answered 410 (saying so: `disabled_reason` gone). */
  async function record(batch: Outcome[]) {
    const rows = batch.map((o) => ({
      id: o.c.id,
      locked_until: o.c.locked_until,
      merchant_id: o.c.merchant_id,
      endpoint_id: o.c.endpoint_id,
      attempt: o.c.attempts,
      status: o.status,
      status_code: o.r.statusCode,
      retry_in: o.retryIn,
      gone: o.gone,
      duration_ms: Math.round(o.r.durationMs),
      response_excerpt: o.r.excerpt,
      error: o.r.error,
      request_headers: o.sent.headers,
      request_body: o.sent.body,
    }));
    await sql`
      with outcome as (
        select * from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as o(
          id uuid, locked_until timestamptz, merchant_id uuid, endpoint_id uuid, attempt int, status text, status_code int,
          retry_in double precision, gone boolean, duration_ms int, response_excerpt text, error text, request_headers jsonb, request_body text)
      ), settled as (
        update webhook_deliveries d
           set status = o.status,
               last_status_code = o.status_code,
               locked_until = null,
               next_attempt_at = case when o.status = 'pending' then ${retryDue(sql.ref('o.retry_in'))} end,
               updated_at = clock_timestamp()
          from outcome o
         where d.id = o.id and d.locked_until = o.locked_until
        returning d.id
      ), attempts as (
        -- A delivery deleted meanwhile (with its endpoint) takes its attempts with it: none is logged.
        insert into webhook_attempts (merchant_id, delivery_id, attempt, status_code, duration_ms, response_excerpt, error, request_headers, request_body)
        select o.merchant_id, o.id, o.attempt, o.status_code, o.duration_ms, o.response_excerpt, o.error, o.request_headers, o.request_body
          from outcome o
         where exists (select 1 from webhook_deliveries d where d.id = o.id)
      )
      update webhook_endpoints e
         set status = 'disabled', disabled_reason = 'gone', disabled_at = clock_timestamp(), updated_at = clock_timestamp()
       where e.id in (select o.endpoint_id from outcome o join settled s on s.id = o.id where o.gone) and e.status = 'enabled'`.execute(db);
    for (const o of batch) {
      if (o.retryIn !== null && autoStart) wakeAt(Date.now() + o.retryIn * 1000);
      webhookAttempts.inc({ outcome: o.status === 'pending' ? 'retrying' : o.status });
      if (o.status === 'delivered') webhookLatency.observe((Date.now() - new Date(o.c.created_at).getTime()) / 1000);
      else log.info({ delivery: o.c.id, attempt: o.c.attempts, status: o.r.statusCode, error: o.r.error, next: o.status }, 'webhook attempt failed');
      o.resolve();
    }
  }

  /** Queues the claimed deliveries behind their endpoints' and starts what the caps allow. */
  function launch(claimed: Claimed[]) {
    for (const c of claimed) {
      const queue = waiting.get(c.endpoint_id);
      if (queue) queue.push(c);
      else waiting.set(c.endpoint_id, [c]);
      waitingCount++;
    }
    startWaiting();
  }

  /** Starts waiting deliveries while their endpoint and the process have free slots (oldest endpoint queue first). */
  function startWaiting() {
    for (const [endpointId, queue] of waiting) {
      if (stopped || posting >= globalCap) return;
      while (queue.length > 0 && (inFlight.get(endpointId) ?? 0) < perEndpoint && posting < globalCap) {
        const c = queue.shift()!;
        waitingCount--;
        // A lease too short for a whole post would let another worker post it too: let it expire instead.
        if (new Date(c.locked_until).getTime() - Date.now() < config.webhookTimeoutMs + 1_000) continue;
        inFlight.set(endpointId, (inFlight.get(endpointId) ?? 0) + 1);
        posting++;
        started++;
        const post: Promise<void> = deliver(c)
          .catch((err) => log.error({ err, delivery: c.id }, 'webhook delivery could not be settled; retried after its lease'))
          .finally(() => {
            posts.delete(post);
            settled++;
          });
        posts.add(post);
      }
      if (queue.length === 0) waiting.delete(endpointId);
    }
  }

  /** Gives back leases of deliveries claimed but never posted, so any worker can take them at once. */
  async function release(rows: Claimed[]) {
    if (rows.length === 0) return;
    await sql`
      update webhook_deliveries d
         set locked_until = null, attempts = d.attempts - 1, updated_at = clock_timestamp()
        from jsonb_to_recordset(${JSON.stringify(rows.map((c) => ({ id: c.id, locked_until: c.locked_until })))}::jsonb) as r(id uuid, locked_until timestamptz)
       where d.id = r.id and d.locked_until = r.locked_until`.execute(db);
  }

  // One claim at a time per process; a kick while one runs asks for another pass after it.
  let filling: Promise<void> | null = null;
  let again = false;

  /** Claims while there is room and something is due. */
  async function fill() {
    for (;;) {
      const free = 2 * globalCap - posting - waitingCount;
      if (stopped || free <= 0) return;
      const claimed = await claim(free);
      if (claimed.length === 0) return;
      launch(claimed);
      if (claimed.length < free) return; // nothing more is claimable right now
    }
  }

  function kick(): Promise<void> {
    if (filling) {
      again = true;
      return filling;
    }
    filling = (async () => {
      do {
        again = false;
        try {
          await fill();
        } catch (err) {
          log.error({ err }, 'webhook worker could not claim deliveries');
          return;
        }
      } while (again && !stopped);
    })().finally(() => {
      filling = null;
    });
    return filling;
  }

  async function tick(): Promise<number> {
    const before = started;
    for (;;) {
      const startedBefore = started;
      const settledBefore = settled;
      await kick();
      // A post that settled while this claim ran may have made a retry due that the claim could not
      // see (its statement began first): claim again then. (A loaded machine showed it: the tick
      // ended with a retry due at once still unsent.)
      if (stopped || (posts.size === 0 && started === startedBefore && settled === settledBefore && !filling)) break;
      if (posts.size > 0) await Promise.race(posts);
    }
    return started - before;
  }

  /**
   * Claims again at `at` (a retry falling due). Every time is kept: a retry scheduled while the
   * timer waits for an earlier one is woken after it (it waited for the poll).
   */
  function wakeAt(at: number) {
    if (stopped) return;
    const due = retriesDue.add(at);
    if (due !== null && due < retryAt) armRetryTimer(due);
  }

  function armRetryTimer(at: number) {
    if (retryTimer) clearTimeout(retryTimer);
    retryAt = at;
    retryTimer = setTimeout(retriesFallDue, Math.max(0, at - Date.now()) + 5);
  }

  function retriesFallDue() {
    retryTimer = null;
    retryAt = Infinity;
    const next = retriesDue.takeDue(Date.now());
    if (next !== Infinity && !stopped) armRetryTimer(next);
    void kick();
  }

  function schedule() {
    if (stopped) return;
    // kick() logs its own failures and never rejects, so the next poll is always scheduled.
    timer = setTimeout(() => void kick().then(schedule), config.workerPollMs);
  }
  if (autoStart) {
    schedule();
    options.wake?.subscribe(() => void kick());
  }

  return {
    tick,
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      if (retryTimer) clearTimeout(retryTimer);
      retriesDue.clear();
      await filling;
      const unposted = [...waiting.values()].flat();
      waiting.clear();
      waitingCount = 0;
      await release(unposted).catch((err) => log.warn({ err }, 'webhook worker could not give back unposted leases; they expire'));
      await Promise.allSettled([...posts]);
      await transport.close();
    },
  };
}
