// The client: one method per operationId of the document, built from the generated operation
// table. Safe reads and the Idempotency-Key writes are retried (network errors, 409
// idempotency_in_progress, 429, 5xx) honouring Retry-After, with the same key on every attempt;
// other writes are retried only on 429 and 503, which the API answers without applying anything.
import { ApiError, NetworkError } from './errors.js';
import { OPERATIONS, type FeedItem, type OperationId } from './generated/operations.js';
import type { HasRequired, Input, ListItem, ListOperationId, Response } from './types.js';

export interface RetryOptions {
  /** Attempts in all, the first included (default 5). */
  maxAttempts?: number;
  /** First backoff when the answer has no Retry-After; doubles each attempt (default 500 ms). */
  baseDelayMs?: number;
  /** Longest wait between attempts; a Retry-After above it ends the retries (default 30 s). */
  maxDelayMs?: number;
}

export interface ResponseInfo {
  operationId: OperationId;
  attempt: number;
  /** null when the attempt got no answer (network error). */
  status: number | null;
  requestId: string | null;
  idempotencyKey: string | null;
  /** The API replayed a stored answer for this Idempotency-Key (`Idempotent-Replayed: true`). */
  replayed: boolean;
}

export interface ClientOptions {
  /** The service's root URL, e.g. `https://api.example.com` (operation paths are appended). */
  baseUrl: string;
  apiKey: string;
  fetch?: typeof globalThis.fetch;
  retry?: RetryOptions;
  /** Waits between attempts (tests inject a fake). */
  sleep?: (ms: number) => Promise<void>;
  /** Milliseconds since the epoch, for Retry-After dates (tests inject a fake). */
  now?: () => number;
  /** Makes an Idempotency-Key when the call does not pass one (default crypto.randomUUID()). */
  idempotencyKey?: () => string;
  /** Extra headers on every request. */
  headers?: Record<string, string>;
  /** Called after every attempt: logging, metrics, tests. */
  onResponse?: (info: ResponseInfo) => void;
}

export interface CallOptions {
  /** For the Idempotency-Key operations: the key to use (default: a new one per call, kept across its retries). */
  idempotencyKey?: string;
  signal?: AbortSignal;
  headers?: Record<string, string>;
}

type Method<K extends OperationId> =
  HasRequired<Input<K>> extends true
    ? (input: Input<K>, options?: CallOptions) => Promise<Response<K>>
    : (input?: Input<K>, options?: CallOptions) => Promise<Response<K>>;

type PageInput<K extends OperationId> = Omit<Input<K>, 'cursor'>;

export type Operations = { [K in OperationId]: Method<K> };

export interface Pagination {
  /** Every item of a list operation, page after page, following `meta.next_cursor`. */
  paginate<K extends ListOperationId>(operationId: K, input?: PageInput<K>, options?: CallOptions): AsyncIterableIterator<ListItem<K>>;
  /** Every page (the whole envelope) of a list operation. */
  pages<K extends ListOperationId>(operationId: K, input?: PageInput<K>, options?: CallOptions): AsyncIterableIterator<Response<K>>;
}

/** An event of the feed (GET /events): the webhook body with its `position`. */
export type FeedEvent = FeedItem;

export interface FeedOptions {
  /** The last position you processed (null or absent: from the oldest event kept). */
  after?: string | null;
  /** Only these event types. */
  types?: readonly string[];
  /** Events per request (1..250, default 250). */
  limit?: number;
  /** Keep waiting for new events once caught up (default false: end when caught up). */
  follow?: boolean;
  /** Pause between polls when following (default 2 s). */
  pollIntervalMs?: number;
  signal?: AbortSignal;
}

export interface EventFeed {
  /**
   * Every event after `options.after`, in feed (commit) order, each exactly once. Store each
   * event's `position` once you have processed it and pass it as `after` to resume.
   */
  feed(options?: FeedOptions): AsyncIterableIterator<FeedEvent>;
}

export type Client = Operations & Pagination & EventFeed;

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function createClient(options: ClientOptions): Client {
  const fetchImpl = options.fetch ?? globalThis.fetch.bind(globalThis);
  const sleep = options.sleep ?? defaultSleep;
  const now = options.now ?? Date.now;
  const maxAttempts = Math.max(1, options.retry?.maxAttempts ?? 5);
  const baseDelay = options.retry?.baseDelayMs ?? 500;
  const maxDelay = options.retry?.maxDelayMs ?? 30_000;
  const newKey = options.idempotencyKey ?? (() => globalThis.crypto.randomUUID());
  const base = options.baseUrl.replace(/\/+$/, '');

  async function call(operationId: OperationId, input: Record<string, unknown> = {}, callOptions: CallOptions = {}): Promise<unknown> {
    const spec = OPERATIONS[operationId];
    const url = buildUrl(operationId, input);
    const headers: Record<string, string> = {
      accept: 'application/json',
      authorization: `Bearer ${options.apiKey}`,
      ...options.headers,
      ...callOptions.headers,
    };
    let body: string | undefined;
    if (spec.body) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(input.body ?? {});
    }
    const idempotencyKey = spec.idempotent ? (callOptions.idempotencyKey ?? newKey()) : null;
    if (idempotencyKey !== null) headers['idempotency-key'] = idempotencyKey;
    // Reads and keyed writes may be repeated; any other write only when the API said nothing was applied.
    const method: string = spec.method;
    const repeatable = method === 'GET' || method === 'HEAD' || spec.idempotent;

    for (let attempt = 1; ; attempt++) {
      let res: globalThis.Response;
      try {
        res = await fetchImpl(url, { method, headers, body, signal: callOptions.signal });
      } catch (err) {
        options.onResponse?.({ operationId, attempt, status: null, requestId: null, idempotencyKey, replayed: false });
        if (callOptions.signal?.aborted || !repeatable || attempt >= maxAttempts) throw new NetworkError(operationId, err, attempt);
        await sleep(backoff(attempt));
        continue;
      }
      const requestId = res.headers.get('x-request-id');
      options.onResponse?.({
        operationId,
        attempt,
        status: res.status,
        requestId,
        idempotencyKey,
        replayed: res.headers.get('idempotent-replayed') === 'true',
      });
      const text = await res.text();
      const parsed = parseJson(text);
      if (res.ok) return text === '' ? undefined : parsed;

      const code = isRecord(parsed) && typeof parsed.code === 'string' ? parsed.code : null;
      const retryable =
        res.status === 429 || res.status === 503 || (repeatable && (res.status >= 500 || (res.status === 409 && code === 'idempotency_in_progress')));
      const wait = retryAfterMs(res.headers.get('retry-after')) ?? backoff(attempt);
      if (!retryable || attempt >= maxAttempts || wait > maxDelay) throw new ApiError(operationId, res.status, parsed, requestId, attempt);
      await sleep(wait);
    }
  }

  function buildUrl(operationId: OperationId, input: Record<string, unknown>): string {
    const spec = OPERATIONS[operationId];
    const known = new Set<string>([...spec.pathParams, ...spec.queryParams, ...(spec.body ? ['body'] : [])]);
    for (const name of Object.keys(input)) {
      if (!known.has(name)) throw new TypeError(`${operationId} takes no parameter "${name}" (it takes: ${[...known].join(', ') || 'nothing'})`);
    }
    let path: string = spec.path;
    for (const name of spec.pathParams) {
      const value = input[name];
      if (value === undefined || value === null || value === '') throw new TypeError(`${operationId} needs the path parameter "${name}"`);
      path = path.replace(`{${name}}`, encodeURIComponent(String(value)));
    }
    const query = new URLSearchParams();
    for (const name of spec.queryParams) {
      const value = input[name];
      if (value === undefined || value === null) continue;
      query.set(name, Array.isArray(value) ? value.join(',') : String(value));
    }
    const qs = query.toString();
    return `${base}${path}${qs ? `?${qs}` : ''}`;
  }

  function backoff(attempt: number): number {
    return Math.min(maxDelay, baseDelay * 2 ** (attempt - 1));
  }

  function retryAfterMs(value: string | null): number | null {
    if (value === null || value.trim() === '') return null;
    if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
    const at = Date.parse(value);
    return Number.isNaN(at) ? null : Math.max(0, at - now());
  }

  async function* pages(operationId: OperationId, input: Record<string, unknown> = {}, callOptions: CallOptions = {}): AsyncIterableIterator<unknown> {
    if (!OPERATIONS[operationId].list) throw new TypeError(`${operationId} is not a cursor list`);
    let cursor: string | null = null;
    do {
      const page = await call(operationId, cursor === null ? input : { ...input, cursor }, callOptions);
      yield page;
      const meta = isRecord(page) && isRecord(page.meta) ? page.meta : null;
      cursor = meta && typeof meta.next_cursor === 'string' ? meta.next_cursor : null;
    } while (cursor !== null);
  }

  async function* paginate(operationId: OperationId, input: Record<string, unknown> = {}, callOptions: CallOptions = {}): AsyncIterableIterator<unknown> {
    for await (const page of pages(operationId, input, callOptions)) {
      if (isRecord(page) && Array.isArray(page.data)) yield* page.data;
    }
  }

  async function* feed(feedOptions: FeedOptions = {}): AsyncIterableIterator<unknown> {
    const operationId = 'listEvents';
    if (!isOperationId(operationId)) throw new TypeError('this API document has no listEvents operation (GET /events)');
    let after = feedOptions.after ?? null;
    const filters: Record<string, unknown> = { limit: feedOptions.limit ?? 250 };
    if (feedOptions.types?.length) filters.types = feedOptions.types.join(',');
    for (;;) {
      // Each page asks for what comes after the last position seen: the feed's own resume rule.
      const page = await call(operationId, after === null ? filters : { ...filters, after }, { signal: feedOptions.signal });
      const items = isRecord(page) && Array.isArray(page.data) ? page.data : [];
      for (const item of items) {
        yield item;
        if (isRecord(item) && typeof item.position === 'string') after = item.position;
      }
      const more = isRecord(page) && isRecord(page.meta) && typeof page.meta.next_cursor === 'string';
      if (more) continue;
      if (!feedOptions.follow || feedOptions.signal?.aborted) return;
      await sleep(feedOptions.pollIntervalMs ?? 2_000);
      if (feedOptions.signal?.aborted) return;
    }
  }

  const client: Record<string, unknown> = { pages, paginate, feed };
  for (const operationId of Object.keys(OPERATIONS)) {
    if (isOperationId(operationId)) client[operationId] = (input?: Record<string, unknown>, callOptions?: CallOptions) => call(operationId, input, callOptions);
  }
  // The table above is the runtime form of the `Client` type: both come from OPERATIONS.
  return client as unknown as Client;
}

function isOperationId(name: string): name is OperationId {
  return Object.hasOwn(OPERATIONS, name);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function parseJson(text: string): unknown {
  if (text === '') return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
