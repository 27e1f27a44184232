// A reference warehouse connector built only on merchant-integration-sdk.
//
// - Webhooks: verified over the raw body, de-duplicated by event id (persisted), acknowledged
//   only after what they caused is on disk (an unacknowledged delivery is simply sent again).
// - Reconcile: at start and every `reconcileIntervalMs`, every open order of the key's locations
//   is read through the list (webhooks are at least once, and none arrive while the connector is
//   down); what is not yet known becomes work.
// - Work: create the fulfillment, have the warehouse ship it, attach its tracking; push the
//   warehouse's stock movements as inventory adjustments. Each call's Idempotency-Key and body are
//   persisted before the call, so a retry, in this process or after a restart, is a replay.
// - Start-up: waits (with backoff) for an API that does not answer yet, until stopped.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  OPERATIONS,
  createClient,
  isApiError,
  NetworkError,
  verifyWebhook,
  WebhookVerificationError,
  type Client,
  type ClientOptions,
  type Order,
  type WebhookEvent,
} from 'merchant-integration-sdk';
import { StateStore, type MovementWork, type OrderWork } from './store.ts';
import { acquireLock, type Lock } from './lock.ts';
import type { StockMovement, Warehouse } from './warehouse.ts';
import { fulfillmentKey, linesToShip, trackingKey } from './shipment.ts';

export interface ConnectorOptions {
  /** The API's root URL, e.g. https://api.example.com */
  baseUrl: string;
  /** A key with the Warehouse scopes, usually restricted to the warehouse's location(s). */
  apiKey: string;
  /** The endpoint's signing secret(s): pass the old and the new one while you rotate. */
  signingSecrets: string[];
  dataDir: string;
  warehouse: Warehouse;
  /** Where the webhook receiver listens (default 127.0.0.1:0; its URL is `connector.url`). */
  host?: string;
  port?: number;
  reconcileIntervalMs?: number;
  /** How often the work loop also runs without a trigger, to pick up new stock movements (default 10 s). */
  pollIntervalMs?: number;
  /** Pause before work that failed (network, 5xx after the SDK's own retries) is tried again; also the first pause of the start-up backoff. */
  retryDelayMs?: number;
  /** Longest pause between start-up attempts while the API does not answer (default 60 s). */
  maxStartDelayMs?: number;
  /** Aborting it during start-up (while waiting for the API) releases the lock and rejects with its reason. */
  signal?: AbortSignal;
  /** Passed to the SDK client (tests inject fetch, retry limits, sleep). */
  client?: Partial<ClientOptions>;
  log?: (message: string, fields?: Record<string, unknown>) => void;
}

export interface ConnectorStats {
  events_accepted: number;
  events_duplicate: number;
  events_rejected: number;
  fulfillments_created: number;
  tracking_attached: number;
  adjustments_pushed: number;
  /** Order events applied from the event feed (catch-up after a restart, and on the reconcile timer). */
  feed_events: number;
  /** Calls the API answered from its idempotency store (work done before a crash or a lost answer). */
  replays: number;
  errors: number;
}

export interface Connector {
  /** The webhook receiver's URL. */
  url: string;
  port: number;
  locationIds: string[];
  stats: ConnectorStats;
  /** Catches up through the event feed (when the API has it), then reads every open order through the list and queues what is new. */
  reconcile(): Promise<void>;
  /** Whether the API offers the event feed (GET /events) that catch-up uses. */
  usesFeed: boolean;
  /** Resolves when no work is running or queued. */
  idle(): Promise<void>;
  stop(): Promise<void>;
}

// The service refuses request bodies over 1 MiB but sends larger webhooks: an order of 250 lines or
// a product of 100 variants at their maxima is 1–1.4 MB (docs/webhooks.md). 16 MiB leaves room; a
// refusal is logged (it was a silent 413, retried by the service for three days).
const MAX_BODY = 16 * 1024 * 1024;

export async function startConnector(options: ConnectorOptions): Promise<Connector> {
  const log =
    options.log ??
    ((message: string, fields: Record<string, unknown> = {}) => console.log(JSON.stringify({ at: new Date().toISOString(), message, ...fields })));
  const lock: Lock = acquireLock(options.dataDir);
  try {
    return await run(options, log, lock);
  } catch (err) {
    lock.release();
    throw err;
  }
}

/** An answer that may come later: no answer at all, 429 or 5xx (after the SDK's own retries). */
function isTransient(err: unknown): boolean {
  return err instanceof NetworkError || (isApiError(err) && (err.status === 429 || err.status >= 500));
}

/** Waits `ms`, or less when `signal` aborts (then rejects with its reason). */
function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      if (signal?.aborted) reject(signal.reason);
      else resolve();
    }
    if (signal?.aborted) done();
    else signal?.addEventListener('abort', done, { once: true });
  });
}

async function run(options: ConnectorOptions, log: (message: string, fields?: Record<string, unknown>) => void, lock: Lock): Promise<Connector> {
  const store = StateStore.open(options.dataDir);
  const stats: ConnectorStats = {
    events_accepted: 0,
    events_duplicate: 0,
    events_rejected: 0,
    fulfillments_created: 0,
    tracking_attached: 0,
    adjustments_pushed: 0,
    feed_events: 0,
    replays: 0,
    errors: 0,
  };
  const userOnResponse = options.client?.onResponse;
  const client: Client = createClient({
    ...options.client,
    baseUrl: options.baseUrl,
    apiKey: options.apiKey,
    onResponse(info) {
      if (info.replayed) stats.replays++;
      userOnResponse?.(info);
    },
  });

  /**
   * A start-up call, made again with backoff while the API does not answer (down, restarting, not
   * yet reachable) rather than exiting; what it refuses (a wrong key: 401) ends the start.
   */
  async function untilAnswered<T>(what: string, call: () => Promise<T>): Promise<T> {
    let delay = options.retryDelayMs ?? 5_000;
    for (;;) {
      options.signal?.throwIfAborted();
      try {
        return await call();
      } catch (err) {
        if (!isTransient(err) || options.signal?.aborted) throw err;
        stats.errors++;
        log('API not answering at start; will retry', { what, error: err instanceof Error ? err.message : String(err), retry_in_ms: delay });
        await pause(delay, options.signal);
        delay = Math.min(delay * 2, options.maxStartDelayMs ?? 60_000);
      }
    }
  }

  const locations = await untilAnswered('listLocations', () => client.listLocations({ limit: 250 }, { signal: options.signal }));
  const locationIds = locations.data.map((l) => l.id);

  // --- work ---------------------------------------------------------------------------------

  let running: Promise<void> | null = null;
  let again = false;
  let stopped = false;
  let retryTimer: NodeJS.Timeout | null = null;

  /** Runs the work loop now, or once more after the current round. */
  function kick(): void {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = (async () => {
      do {
        again = false;
        const failed = await workRound();
        if (failed && !stopped && retryTimer === null) {
          retryTimer = setTimeout(() => {
            retryTimer = null;
            kick();
          }, options.retryDelayMs ?? 5_000);
        }
      } while (again && !stopped);
    })().finally(() => {
      running = null;
    });
  }

  /** One pass over all pending work; true when something failed and should be tried again. */
  async function workRound(): Promise<boolean> {
    let failed = false;
    for (const work of Object.values(store.state.orders)) {
      if (stopped) return failed;
      if (work.state === 'to_ship') failed = !(await attempt(`fulfil order ${work.order_number}`, () => fulfil(work))) || failed;
      if (work.state === 'fulfilled') failed = !(await attempt(`ship order ${work.order_number}`, () => ship(work))) || failed;
    }
    let movements: StockMovement[] = [];
    if (!(await attempt('read stock movements', async () => void (movements = await options.warehouse.stockMovements())))) return true;
    for (const movement of movements) {
      if (stopped) return failed;
      const known = store.state.movements[movement.id];
      if (known && known.state !== 'to_push') continue;
      failed = !(await attempt(`push movement ${movement.id}`, () => pushMovement(movement))) || failed;
    }
    return failed;
  }

  async function attempt(what: string, step: () => Promise<void>): Promise<boolean> {
    try {
      await step();
      return true;
    } catch (err) {
      stats.errors++;
      log('work failed; will retry', { what, error: err instanceof Error ? err.message : String(err) });
      return false;
    }
  }

  /**
   * Creates the order's fulfillment. What to ship comes from the order as it is now, not from the
   * copy that queued it (an event's copy may predate a fulfillment made elsewhere), and is stored
   * with its key before the call; once decided it is sent as it is until the API answers, so a
   * lost answer replays. Refused for its quantities (someone fulfilled part of it meanwhile), or
   * its key known with another body (a state from before keys named the lines), the order is read
   * again and what is left gets its own key.
   */
  async function fulfil(work: OrderWork): Promise<void> {
    const refused = new Set<string>();
    for (;;) {
      let key = work.fulfillment_key;
      if (key === null) {
        if (refused.size >= 5) throw new Error(`order ${work.order_number} keeps changing under its fulfillment; trying again later`);
        const order = (await client.getOrder({ id: work.order_id })).data;
        if (order.status !== 'open') return skip(work, `order ${order.status}`);
        const items = linesToShip(order);
        if (items.length === 0) return skip(work, 'nothing left to fulfil (fulfilled elsewhere)');
        const planned = fulfillmentKey(order.id, items);
        // The API keeps its refusal under that key; sending the same lines again would only replay it.
        if (refused.has(planned)) return skip(work, `the API refused these lines under ${planned} and the order still lists them`);
        await store.update(() => {
          work.items = items;
          work.fulfillment_key = planned;
        });
        key = planned;
      }
      try {
        const created = await client.createFulfillment({ body: { merchant_order_id: work.order_id, items: work.items } }, { idempotencyKey: key });
        await store.update(() => {
          work.state = 'fulfilled';
          work.fulfillment_id = created.data.id;
          work.updated_at = new Date().toISOString();
        });
        stats.fulfillments_created++;
        log('fulfillment created', { order_number: work.order_number, fulfillment_id: created.data.id });
        return;
      } catch (err) {
        // The order was cancelled or closed meanwhile: nothing to ship.
        if (isApiError(err, 'invalid_state')) return skip(work, `${err.code}: ${err.detail}`);
        const quantities = isApiError(err, 'validation_failed') && err.errors.length > 0 && err.errors.every((e) => /^\/items\/\d+\/quantity$/.test(e.path));
        if (!quantities && !isApiError(err, 'idempotency_key_reused')) {
          if (isApiError(err, 'validation_failed')) return skip(work, `${err.code}: ${err.detail}`);
          throw err;
        }
        log('fulfillment refused; reading the order again', { order_number: work.order_number, key, error: err.message });
        refused.add(key);
        await store.update(() => {
          work.fulfillment_key = null;
        });
      }
    }
  }

  /**
   * Has the warehouse ship the fulfillment and attaches its tracking. The tracking and its key (which
   * names it) are stored before the call, so a retry, after a crash too, sends the same again and replays.
   */
  async function ship(work: OrderWork): Promise<void> {
    const fulfillmentId = work.fulfillment_id;
    if (fulfillmentId === null) throw new Error(`order ${work.order_number} is fulfilled without a fulfillment id`);
    let { tracking, tracking_key: key } = work;
    if (tracking === null || key === null) {
      const answered = await options.warehouse.ship({
        order_id: work.order_id,
        order_number: work.order_number,
        fulfillment_id: fulfillmentId,
        items: work.items,
      });
      const named = trackingKey(fulfillmentId, answered);
      await store.update(() => {
        work.tracking = answered;
        work.tracking_key = named;
      });
      tracking = answered;
      key = named;
    }
    try {
      await client.attachTracking({ id: fulfillmentId, body: tracking }, { idempotencyKey: key });
    } catch (err) {
      if (isApiError(err, 'invalid_state', 'not_found')) return skip(work, `${err.code}: ${err.detail}`);
      throw err;
    }
    await store.update(() => {
      work.state = 'shipped';
      work.updated_at = new Date().toISOString();
    });
    stats.tracking_attached++;
    log('tracking attached', { order_number: work.order_number, tracking_number: tracking.tracking_number });
  }

  function skip(work: OrderWork, reason: string): Promise<void> {
    log('order skipped', { order_number: work.order_number, reason });
    return store.update(() => {
      work.state = 'skipped';
      work.skipped_reason = reason;
      work.updated_at = new Date().toISOString();
    });
  }

  async function pushMovement(movement: StockMovement): Promise<void> {
    let work: MovementWork | undefined = store.state.movements[movement.id];
    if (!work) {
      const created: MovementWork = {
        movement_id: movement.id,
        key: `wc-movement-${movement.id}`,
        state: 'to_push',
        rejected_reason: null,
        updated_at: new Date().toISOString(),
      };
      await store.update((s) => {
        s.movements[movement.id] = created;
      });
      work = created;
    }
    const row = { sku: movement.sku, fulfillment_location_id: movement.fulfillment_location_id, adjustment: movement.delta, reason: movement.reason };
    const target = work;
    try {
      await client.adjustInventory({ body: { adjustments: [row] } }, { idempotencyKey: target.key });
    } catch (err) {
      if (isApiError(err, 'validation_failed', 'location_forbidden')) {
        log('stock movement rejected', { movement: movement.id, code: err.code, errors: err.errors });
        return store.update(() => {
          target.state = 'rejected';
          target.rejected_reason = `${err.code}: ${err.errors.map((e) => `${e.path} ${e.code}`).join(', ') || err.detail}`;
        });
      }
      throw err;
    }
    await store.update(() => {
      target.state = 'pushed';
      target.updated_at = new Date().toISOString();
    });
    stats.adjustments_pushed++;
  }

  // --- discovery (webhooks and reconcile) ---------------------------------------------------

  /** Queues an open order with something to fulfil at our locations, once. Mutates state only. */
  function noteOrder(order: Order): boolean {
    if (store.state.orders[order.id] || order.status !== 'open' || !locationIds.includes(order.fulfillment_location_id)) return false;
    if (linesToShip(order).length === 0) return false;
    // What to ship is decided when the work runs, from the order as it is then (fulfil).
    store.state.orders[order.id] = {
      order_id: order.id,
      order_number: order.order_number,
      state: 'to_ship',
      fulfillment_key: null,
      items: [],
      fulfillment_id: null,
      tracking_key: null,
      tracking: null,
      skipped_reason: null,
      updated_at: new Date().toISOString(),
    };
    return true;
  }

  function noteCancelled(order: Order): void {
    const work = store.state.orders[order.id];
    if (work && work.state === 'to_ship') {
      work.state = 'skipped';
      work.skipped_reason = 'order cancelled';
    }
  }

  /** Applies an event (webhook or feed) to the in-memory state, once per event id. Mutates state only. */
  function applyEvent(event: WebhookEvent): boolean {
    if (store.state.events[event.id]) return false;
    switch (event.type) {
      case 'order.created':
      case 'order.updated':
        noteOrder(event.data.object);
        break;
      case 'order.cancelled':
        noteCancelled(event.data.object);
        break;
      default:
        break;
    }
    store.state.events[event.id] = new Date().toISOString();
    return true;
  }

  async function handleEvent(event: WebhookEvent): Promise<'accepted' | 'duplicate'> {
    if (store.state.events[event.id]) return 'duplicate';
    // The event id and the work it causes are written together, before the 2xx.
    await store.update(() => void applyEvent(event));
    kick();
    return 'accepted';
  }

  const usesFeed = Object.hasOwn(OPERATIONS, 'listEvents');
  const ORDER_EVENTS = ['order.created', 'order.updated', 'order.cancelled'];

  /**
   * Applies the order events after the stored feed position, in commit order, and stores the new
   * position. A first run only finds the feed's end: the open-orders list is its backfill, and old
   * events would describe orders as they were, not as they are. A position past the feed's
   * retention (410 `cursor_expired`) is forgotten and the first run taken again: the end noted
   * now, then reconcile's backfill (docs/events.md: the end before the backfill).
   */
  async function catchUp(): Promise<void> {
    if (!usesFeed) return;
    try {
      await followFeed();
    } catch (err) {
      if (!isApiError(err, 'cursor_expired')) throw err;
      log('feed position expired; backfilling from the open orders, then following the feed from its start', { position: store.state.feed_position });
      await store.update((s) => {
        s.feed_position = null;
      });
      await followFeed();
    }
  }

  async function followFeed(): Promise<void> {
    const firstRun = store.state.feed_position === null;
    let applied = 0;
    let read = 0;
    for await (const event of client.feed({ after: store.state.feed_position, types: ORDER_EVENTS })) {
      if (!firstRun && applyEvent(event)) applied++;
      store.state.feed_position = event.position;
      // Position and applied work are saved together every page's worth; re-applying is harmless (ids are kept).
      if (++read % 250 === 0) await store.update(() => {});
    }
    await store.update(() => {});
    stats.feed_events += applied;
    if (applied) log('feed catch-up applied events', { applied, position: store.state.feed_position });
  }

  async function reconcile(): Promise<void> {
    await catchUp();
    let queued = 0;
    for await (const order of client.paginate('listOrders', { status: 'open', limit: 250 })) if (noteOrder(order)) queued++;
    await store.update(() => {});
    if (queued) log('reconcile queued orders', { queued });
    kick();
  }

  // --- webhook receiver ---------------------------------------------------------------------

  // Handlers still running: stop() lets them store and answer before connections close.
  const inFlight = new Set<Promise<void>>();
  const server = http.createServer((req, res) => {
    if (stopped) {
      res.writeHead(503, { connection: 'close' }).end();
      return;
    }
    if (req.method !== 'POST') {
      res.writeHead(405, { allow: 'POST' }).end();
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY) chunks.push(chunk);
    });
    req.on('end', () => {
      const handling = (async () => {
        if (size > MAX_BODY) {
          stats.events_rejected++;
          log('webhook rejected', { reason: 'body_too_large', bytes: size });
          return void res.writeHead(413).end();
        }
        let event: WebhookEvent;
        try {
          event = await verifyWebhook({ rawBody: Buffer.concat(chunks), headers: req.headers, secret: options.signingSecrets });
        } catch (err) {
          stats.events_rejected++;
          const reason = err instanceof WebhookVerificationError ? err.reason : 'error';
          log('webhook rejected', { reason });
          return void res.writeHead(400, { 'content-type': 'text/plain' }).end(reason);
        }
        try {
          const outcome = await handleEvent(event);
          if (outcome === 'duplicate') stats.events_duplicate++;
          else stats.events_accepted++;
          res.writeHead(204).end();
        } catch (err) {
          stats.errors++;
          log('webhook not stored; the API will send it again', { event: event.id, error: err instanceof Error ? err.message : String(err) });
          res.writeHead(503).end();
        }
      })();
      inFlight.add(handling);
      void handling.finally(() => inFlight.delete(handling));
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve));
  const address: AddressInfo | string | null = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;

  await store.prune(new Date());
  try {
    await untilAnswered('reconcile', reconcile);
  } catch (err) {
    // Given up (stopped, or refused): undo what started, as stop() does, before the lock goes.
    stopped = true;
    if (retryTimer) clearTimeout(retryTimer);
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await closed;
    while (running) await running;
    await store.flushed().catch(() => {});
    throw err;
  }
  const reconcileTimer = setInterval(() => {
    reconcile().catch((err: unknown) => {
      stats.errors++;
      log('reconcile failed', { error: err instanceof Error ? err.message : String(err) });
    });
  }, options.reconcileIntervalMs ?? 60_000);
  const pollTimer = setInterval(kick, options.pollIntervalMs ?? 10_000);
  log('connector started', {
    url: `http://${options.host ?? '127.0.0.1'}:${port}/webhooks`,
    locations: locationIds,
    pending: Object.values(store.state.orders).filter((o) => o.state === 'to_ship' || o.state === 'fulfilled').length,
  });

  return {
    url: `http://${options.host ?? '127.0.0.1'}:${port}/webhooks`,
    port,
    locationIds,
    stats,
    reconcile,
    usesFeed,
    async idle() {
      while (running) await running;
    },
    async stop() {
      stopped = true;
      clearInterval(reconcileTimer);
      clearInterval(pollTimer);
      if (retryTimer) clearTimeout(retryTimer);
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      await Promise.all(inFlight);
      server.closeAllConnections();
      await closed;
      while (running) await running;
      await store.flushed();
      lock.release();
    },
  };
}
