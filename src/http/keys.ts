// Finding the API key a request presents, below the modules so that src/http/auth.ts depends on
// nothing above it. Keys are stored as the SHA-256 of their secret (the secret is shown once, at
// creation: src/modules/api-keys).
//
// Lookups are cached in the process (issue #14: the lookup was a round trip on every request), and
// a revocation still takes effect at once everywhere:
// - setting api_keys.revoked_at sends NOTIFY api_key_changes (a trigger, migration 0013, so the
//   notification leaves with the commit, before the revoke is answered, whoever wrote it), and
//   this process forgets the key directly;
// - every API process on PostgreSQL LISTENs on that channel on a connection of its own, forgets
//   the key it names and answers on KEY_ACKS_CHANNEL; the revoking process waits (up to 2 s) for as
//   many answers as there are listening connections before it answers the revoke, so when the
//   revoke is answered every process has forgotten the key. The cache is used only while that
//   connection is up: while it is down (and until it is back) every request looks its key up, and
//   on reconnecting the cache is emptied, since a revocation may have gone by unheard;
// - embedded PGlite is one process, so the direct forgetting is enough;
// - a request answered from the cache first lets the event loop read whatever has arrived (one
//   setImmediate, no round trip), so a notification already on the socket is applied before the key
//   is trusted.
// `last_used_at` is written off the request path: touched keys are collected and written by one
// statement a second (at most once a minute per key), and before anything reads the key records.
import { hash } from 'node:crypto';
import { sql } from 'kysely';
import type { Database } from '../db/database.ts';

// A fixed, greppable prefix lets secret scanners recognise leaked keys.
export const KEY_PREFIX = 'mia_sk_';
/** The channel a change to a key's access (revocation) is announced on; the payload is the key's id. */
export const KEY_CHANGES_CHANNEL = 'api_key_changes';
/** Each listening process answers an announcement here (payload: the key's id) once it has forgotten the key. */
export const KEY_ACKS_CHANNEL = 'api_key_acks';
/** application_name of the listening connections (how many there are is how many answers to wait for). */
export const KEY_LISTENER_NAME = 'api-key-changes';

// One-shot crypto.hash: no Hash object per request (0.35 µs against createHash's 0.9–1.3 here).
export const hashSecret = (secret: string) => hash('sha256', secret, 'hex');

/** A key as authentication sees it (revoked ones too: the request log names them). */
export interface PresentedKey {
  id: string;
  merchant_id: string;
  scopes: string[];
  location_ids: string[] | null;
  revoked_at: Date | null;
}

const MAX_ENTRIES = 10_000;
const TOUCH_EVERY_MS = 60_000;
const FLUSH_EVERY_MS = 1_000;

async function lookUp(db: Database, hash: string): Promise<PresentedKey | undefined> {
  return db.selectFrom('api_keys').select(['id', 'merchant_id', 'scopes', 'location_ids', 'revoked_at']).where('secret_hash', '=', hash).executeTakeFirst();
}

/** One statement for every key touched since the last write; a fresher last_used_at is kept. */
async function writeTouches(db: Database, keys: Pick<PresentedKey, 'id' | 'merchant_id'>[]): Promise<void> {
  await db
    .updateTable('api_keys')
    .set({ last_used_at: sql`clock_timestamp()` })
    .where(sql<boolean>`(merchant_id, id) in (${sql.join(keys.map((k) => sql`(${k.merchant_id}::uuid, ${k.id}::uuid)`))})`)
    .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', sql<Date>`clock_timestamp() - interval '60 seconds'`)]))
    .execute();
}

export class KeyStore {
  readonly #db: Database;
  /** secret hash → key; Map order is insertion order, the oldest go first when full. */
  readonly #cache = new Map<string, PresentedKey>();
  /** Sources of trust: the in-process database (PGlite), or LISTEN connections that are up. */
  #trust = 0;
  /** Bumped by every forget: a lookup that overlapped one is not cached. */
  #generation = 0;
  readonly #touchedAt = new Map<string, number>();
  #pending = new Map<string, Pick<PresentedKey, 'id' | 'merchant_id'>>();
  #flushing: Promise<void> = Promise.resolve();
  #timer: NodeJS.Timeout | null = null;
  #onTouchError: (err: unknown) => void = () => {};
  /** Revocations waiting for the listening processes' answers: key id → waiters. */
  readonly #waiters = new Map<string, Set<{ acks: number; wake(): void }>>();
  /** LISTEN connections of this process that are up (answers can be heard). */
  #listening = 0;

  constructor(db: Database) {
    this.#db = db;
  }

  /** The key whose secret this is, from the cache while it can be trusted. */
  async find(secret: string): Promise<PresentedKey | undefined> {
    if (!secret.startsWith(KEY_PREFIX) || secret.length > 200) return undefined;
    const hash = hashSecret(secret);
    if (this.#trust > 0) {
      const cached = this.#cache.get(hash);
      if (cached) {
        // Let a notification already received be applied before the key is trusted.
        await new Promise((resolve) => setImmediate(resolve));
        const still = this.#cache.get(hash);
        if (still) return still;
      }
    }
    const trustedBefore = this.#trust > 0;
    const generation = this.#generation;
    const key = await lookUp(this.#db, hash);
    // Cached only if nothing was forgotten meanwhile (the row read may predate the change).
    if (key && trustedBefore && this.#trust > 0 && generation === this.#generation) {
      if (this.#cache.size >= MAX_ENTRIES) this.#cache.delete(this.#cache.keys().next().value!);
      this.#cache.set(hash, key);
    }
    return key;
  }

  /** A key's access changed (revoked): the next request looks it up again. */
  forget(id: string): void {
    this.#generation++;
    for (const [hash, key] of this.#cache) if (key.id === id) this.#cache.delete(hash);
  }

  /** Everything may have changed (a LISTEN connection was down). */
  forgetAll(): void {
    this.#generation++;
    this.#cache.clear();
  }

  /** Whether lookups are answered from the cache now. */
  get trusted(): boolean {
    return this.#trust > 0;
  }

  /** The cache may be used from now on (until `distrust`). */
  trust(): void {
    this.forgetAll();
    this.#trust++;
  }

  distrust(): void {
    this.#trust = Math.max(0, this.#trust - 1);
    this.forgetAll();
  }

  /** A LISTEN connection of this process came up (true) or went down (false). */
  listening(up: boolean): void {
    this.#listening = Math.max(0, this.#listening + (up ? 1 : -1));
  }

  /**
   * Before a revocation commits: `wait(expected)` resolves once `expected` listening processes
   * have answered that they forgot the key (at most `timeoutMs`; at once when this process cannot
   * hear answers, e.g. on PGlite, where the revocation is in this process anyway).
   */
  awaitForgotten(id: string) {
    const waiter = { acks: 0, wake: () => {} };
    let set = this.#waiters.get(id);
    if (!set) this.#waiters.set(id, (set = new Set()));
    set.add(waiter);
    const done = () => {
      set.delete(waiter);
      if (set.size === 0 && this.#waiters.get(id) === set) this.#waiters.delete(id);
    };
    return {
      canHear: this.#listening > 0,
      wait: (expected: number, timeoutMs = 2_000) =>
        new Promise<boolean>((resolve) => {
          if (waiter.acks >= expected) return resolve(true);
          const timer = setTimeout(() => resolve(false), timeoutMs);
          waiter.wake = () => {
            if (waiter.acks < expected) return;
            clearTimeout(timer);
            resolve(true);
          };
        }).finally(done),
      cancel: done,
    };
  }

  /** A listening process has forgotten key `id`. */
  acknowledged(id: string): void {
    for (const waiter of this.#waiters.get(id) ?? []) {
      waiter.acks++;
      waiter.wake();
    }
  }

  /** Records that a key was used; written within a second, off the request path. */
  touch(key: Pick<PresentedKey, 'id' | 'merchant_id'>): void {
    const now = Date.now();
    if ((this.#touchedAt.get(key.id) ?? 0) >= now - TOUCH_EVERY_MS) return;
    this.#touchedAt.set(key.id, now);
    this.#pending.set(key.id, { id: key.id, merchant_id: key.merchant_id });
    this.#timer ??= setTimeout(() => {
      this.#timer = null;
      this.flushTouches().catch(this.#onTouchError);
    }, FLUSH_EVERY_MS).unref();
  }

  /** Writes the touches collected so far (before reading key records, and on close). */
  flushTouches(): Promise<void> {
    if (this.#timer) {
      clearTimeout(this.#timer);
      this.#timer = null;
    }
    const batch = [...this.#pending.values()];
    this.#pending = new Map();
    // One write at a time, in order; a failed one does not stop the next.
    this.#flushing = this.#flushing.catch(() => {}).then(() => (batch.length ? writeTouches(this.#db, batch) : undefined));
    return this.#flushing;
  }

  onTouchError(fn: (err: unknown) => void): void {
    this.#onTouchError = fn;
  }
}

const stores = new WeakMap<Database, KeyStore>();

/** The process's key store for this database (every app and service on it shares one). */
export function keyStore(db: Database): KeyStore {
  let store = stores.get(db);
  if (!store) stores.set(db, (store = new KeyStore(db)));
  return store;
}
