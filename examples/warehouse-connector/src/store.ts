// The connector's durable state: one JSON file under the data directory, replaced atomically
// (write a temporary file, fsync, rename) after every change, so a crash leaves the previous or the
// next state, never half of one. Every piece of work is written here, with its Idempotency-Key and
// its exact payload, before the API call that performs it: after a restart the same call is made
// again with the same key and body, and the API replays its answer instead of applying it twice.
import fs from 'node:fs';
import path from 'node:path';
import type { RequestBody } from 'merchant-integration-sdk';

/** One line of a fulfillment, as createFulfillment takes it. */
export type LineToShip = RequestBody<'createFulfillment'>['items'][number];
/** Tracking as attachTracking takes it. */
export type Tracking = RequestBody<'attachTracking'>;

export interface OrderWork {
  order_id: string;
  order_number: number;
  /** to_ship → fulfilled (fulfillment created) → shipped (tracking attached); or skipped. */
  state: 'to_ship' | 'fulfilled' | 'shipped' | 'skipped';
  /**
   * The fulfillment's key and lines, decided from a fresh read of the order and stored before the
   * call, so that a retry sends exactly them again. null while undecided (queued, or refused for
   * its quantities and to be read again).
   */
  fulfillment_key: string | null;
  items: LineToShip[];
  fulfillment_id: string | null;
  /**
   * The tracking's key (`trackingKey`: the fulfillment and what is sent) and body, stored together
   * once the warehouse has answered and before the call, so that a retry sends exactly them again.
   * null while the warehouse has not answered. A state from before keys named the tracking may hold
   * `wc-track-<order id>` here: kept once its tracking is stored, since it may have been sent.
   */
  tracking_key: string | null;
  tracking: Tracking | null;
  skipped_reason: string | null;
  updated_at: string;
}

export interface MovementWork {
  movement_id: string;
  key: string;
  state: 'to_push' | 'pushed' | 'rejected';
  rejected_reason: string | null;
  updated_at: string;
}

export interface ConnectorState {
  version: 1;
  /** Webhook event ids already handled, with when they arrived (pruned after `EVENT_MEMORY_DAYS`). */
  events: Record<string, string>;
  orders: Record<string, OrderWork>;
  movements: Record<string, MovementWork>;
  /** The last event-feed position applied (GET /events), when the API has the feed. */
  feed_position: string | null;
}

export const EVENT_MEMORY_DAYS = 7;

const empty = (): ConnectorState => ({ version: 1, events: {}, orders: {}, movements: {}, feed_position: null });

export class StateStore {
  readonly file: string;
  readonly state: ConnectorState;
  private writing: Promise<void> = Promise.resolve();

  private constructor(file: string, state: ConnectorState) {
    this.file = file;
    this.state = state;
  }

  static open(dataDir: string): StateStore {
    fs.mkdirSync(dataDir, { recursive: true });
    const file = path.join(dataDir, 'connector-state.json');
    removeStaleTemporaryFiles(dataDir);
    if (!fs.existsSync(file)) return new StateStore(file, empty());
    const parsed: unknown = JSON.parse(fs.readFileSync(file, 'utf8'));
    if (!isState(parsed)) throw new Error(`${file} is not a connector state file (version 1)`);
    return new StateStore(file, { ...parsed, feed_position: parsed.feed_position ?? null });
  }

  /** Applies `change` to the state and resolves once the new state is on disk. Changes are written in order. */
  update(change: (state: ConnectorState) => void): Promise<void> {
    change(this.state);
    const snapshot = JSON.stringify(this.state);
    // A failed write fails its caller; the next change writes the whole state again.
    this.writing = this.writing.catch(() => {}).then(() => writeAtomically(this.file, snapshot));
    return this.writing;
  }

  /** Forgets event ids older than the memory window (the API stops redelivering long before). */
  prune(now: Date): Promise<void> {
    const cutoff = now.getTime() - EVENT_MEMORY_DAYS * 86_400_000;
    return this.update((s) => {
      for (const [id, at] of Object.entries(s.events)) if (Date.parse(at) < cutoff) delete s.events[id];
    });
  }

  flushed(): Promise<void> {
    return this.writing;
  }
}

/**
 * A process killed during a write (kill -9, power loss) leaves its temporary file behind, never
 * renamed. The caller holds the data directory's lock, so no other process is writing one now.
 */
function removeStaleTemporaryFiles(dataDir: string): void {
  for (const name of fs.readdirSync(dataDir)) {
    if (/^connector-state\.json\.\d+\.tmp$/.test(name)) fs.rmSync(path.join(dataDir, name), { force: true });
  }
}

function writeAtomically(file: string, text: string): void {
  const tmp = `${file}.${process.pid}.tmp`;
  const fd = fs.openSync(tmp, 'w');
  try {
    fs.writeSync(fd, text);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, file);
}

function isState(v: unknown): v is ConnectorState {
  if (typeof v !== 'object' || v === null) return false;
  return 'version' in v && v.version === 1 && 'events' in v && 'orders' in v && 'movements' in v;
}
