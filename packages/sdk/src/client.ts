// The client: one method per operationId of the document, built from the generated operation
// table. Safe reads and the Idempotency-Key writes are retried (network errors, 409
// idempotency_in_progress, 429, 5xx) honouring Retry-After, with the same key on every attempt;
// other writes are retried only on 429 and 503, which the API answers without applying anything.
// An answer cut off mid-body, or a 2xx whose body is not JSON, is no answer: a network error; so is
// an attempt that outlives `timeoutMs` (without it, a server that accepts and never answers would
// hold every attempt for undici's own 300 s). A request fetch refuses to send (a line break in the
// API key) is no network error: it is refused alike on every attempt, so it is thrown at the first.
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
  /** The service's root URL, e.g. `https://api.example.com` (operation paths are appended); anything but an absolute http(s) URL is a TypeError here. */
  baseUrl: string;
  apiKey: string;
  fetch?: typeof globalThis.fetch;
  retry?: RetryOptions;
  /**
   * Longest time an attempt (the request and its whole answer) may take, default 30 s; 0 or Infinity:
   * none. A timed-out attempt counts as a network error: retried as one, then a NetworkError.
   */
  timeoutMs?: number;
  /** Waits between attempts and polls (tests inject a fake); a call's or feed's signal ends a wait at once. */
  sleep?: (ms: number) => Promise<void>;
  /** Milliseconds since the epoch, for Retry-After dates (tests inject a fake). */
  now?: () => number;
  /** Makes an Idempotency-Key when the call does not pass one (default crypto.randomUUID()). */
  idempotencyKey?: () => string;
  /** Extra headers on every request (names in any letter case; an `Idempotency-Key` here is the key of every keyed write). */
  headers?: Record<string, string>;
  /** Called after every attempt: logging, metrics, tests. */
  onResponse?: (info: ResponseInfo) => void;
}

export interface CallOptions {
  /** For the Idempotency-Key operations: the key to use (default: a new one per call, kept across its retries). */
  idempotencyKey?: string;
  /** Aborts the call, its request or a wait between attempts: it rejects with the signal's reason, as fetch does. */
  signal?: AbortSignal;
  /** Extra headers for this call, over the client's (names in any letter case; an `Idempotency-Key` here is the call's key). */
  headers?: Record<string, string>;
}

type Method<K extends OperationId> =
  HasRequired<Input<K>> extends true
    ? (input: Input<K>, options?: CallOptions) => Promise<Response<K>>
    : (input?: Input<K>, options?: CallOptions) => Promise<Response<K>>;

type PageInput<K extends OperationId> = Omit<Input<K>, 'cursor'>;

export type Operations = { [K in OperationId]: Method<K> };

export interface Pagination {
  /**
   * Every item of a list operation, page after page, following `meta.next_cursor`. Lists are in
   * `updated_at` order: an item that changes during the walk moves to the end and comes again,
   * changed (de-duplicate by `id`, keep the latest). A walk is a snapshot: to miss no change, follow
   * the event feed from its end noted before the walk.
   */
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
  /** Ends the feed (it returns) when aborted, during a request or a poll wait. */
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

export function createClient(options: ClientOptions): Client {
  const fetchImpl = options.fetch ?? globalThis.fetch.bind(globalThis);
  const now = options.now ?? Date.now;
  const maxAttempts = Math.max(1, options.retry?.maxAttempts ?? 5);
  const baseDelay = options.retry?.baseDelayMs ?? 500;
  const maxDelay = options.retry?.maxDelayMs ?? 30_000;
  const newKey = options.idempotencyKey ?? (() => globalThis.crypto.randomUUID());
  const base = checkedBaseUrl(options.baseUrl);
  const timeoutMs = checkedTimeout(options.timeoutMs);

  async function call(operationId: OperationId, input: Record<string, unknown> = {}, callOptions: CallOptions = {}): Promise<unknown> {
    const spec = OPERATIONS[operationId];
    const url = buildUrl(operationId, input);
    const { headers, idempotencyKey } = requestHeaders(operationId, callOptions);
    const body = spec.body ? JSON.stringify(input.body ?? {}) : undefined;
    const signal = callOptions.signal;
    // Reads and keyed writes may be repeated; any other write only when the API said nothing was applied.
    const method: string = spec.method;
    const write = method !== 'GET' && method !== 'HEAD';
    const repeatable = !write || spec.idempotent;

    /** After an attempt that got no usable answer: throws `failure` unless the operation may be repeated, else waits. */
    async function giveUpOrWait(failure: NetworkError, attempt: number): Promise<void> {
      signal?.throwIfAborted();
      if (!repeatable || attempt >= maxAttempts) throw failure;
      await pause(backoff(attempt), signal);
      signal?.throwIfAborted();
    }

    /**
     * One request and its whole answer, within the attempt's time limit: the answer, or the
     * NetworkError that stands for none. Aborted by the caller, it throws the signal's reason.
     */
    async function exchange(attempt: number): Promise<{ res: globalThis.Response; text: string } | NetworkError> {
      const limit = attemptLimit(signal);
      try {
        let res: globalThis.Response;
        try {
          res = await fetchImpl(url, { method, headers, body, signal: limit.signal });
        } catch (err) {
          options.onResponse?.({ operationId, attempt, status: null, requestId: null, idempotencyKey, replayed: false });
          signal?.throwIfAborted();
          if (limit.timedOut()) return new NetworkError(operationId, limit.timeout, attempt, { write });
          const refused = refusal(operationId, err, { url, method, headers, body }, options.apiKey);
          if (refused !== null) throw refused;
          return new NetworkError(operationId, err, attempt);
        }
        options.onResponse?.({
          operationId,
          attempt,
          status: res.status,
          requestId: res.headers.get('x-request-id'),
          idempotencyKey,
          replayed: res.headers.get('idempotent-replayed') === 'true',
        });
        // The body is part of the answer: one cut off (the server may have applied the write) is no answer.
        try {
          return { res, text: await res.text() };
        } catch (err) {
          signal?.throwIfAborted();
          return new NetworkError(operationId, limit.timedOut() ? limit.timeout : err, attempt, { status: res.status, problem: 'cut_off', write });
        }
      } finally {
        limit.end();
      }
    }

    for (let attempt = 1; ; attempt++) {
      // Aborted, a call rejects with the signal's reason, as fetch itself does.
      signal?.throwIfAborted();
      const answer = await exchange(attempt);
      if (answer instanceof NetworkError) {
        await giveUpOrWait(answer, attempt);
        continue;
      }
      const { res, text } = answer;
      const requestId = res.headers.get('x-request-id');
      if (res.ok) {
        const success = successBody(operationId, res.status, text);
        if (!(success instanceof Error)) return success.value;
        await giveUpOrWait(new NetworkError(operationId, success, attempt, { status: res.status, problem: 'not_json', write }), attempt);
        continue;
      }

      const parsed = parseJson(text);
      const code = isRecord(parsed) && typeof parsed.code === 'string' ? parsed.code : null;
      const retryable =
        res.status === 429 || res.status === 503 || (repeatable && (res.status >= 500 || (res.status === 409 && code === 'idempotency_in_progress')));
      const wait = retryAfterMs(res.headers.get('retry-after'), now()) ?? backoff(attempt);
      if (!retryable || attempt >= maxAttempts || wait > maxDelay) throw new ApiError(operationId, res.status, parsed, requestId, attempt);
      await pause(wait, signal);
      signal?.throwIfAborted();
    }
  }

  /**
   * The headers of a call, names in lower case so that none is sent twice: client headers, then the
   * call's, then the SDK's (an `authorization` of yours replaces the SDK's). An Idempotency-Key given
   * in headers is the call's key, as `idempotencyKey` is.
   */
  function requestHeaders(operationId: OperationId, callOptions: CallOptions): { headers: Record<string, string>; idempotencyKey: string | null } {
    const spec = OPERATIONS[operationId];
    const given: Record<string, string> = {};
    for (const source of [options.headers, callOptions.headers]) {
      for (const [name, value] of Object.entries(source ?? {})) given[name.toLowerCase()] = value;
    }
    const headerKey = given['idempotency-key'];
    if (headerKey !== undefined && callOptions.idempotencyKey !== undefined && headerKey !== callOptions.idempotencyKey) {
      throw new TypeError(`${operationId} was given two Idempotency-Keys: "${headerKey}" in headers and "${callOptions.idempotencyKey}" as idempotencyKey`);
    }
    const headers: Record<string, string> = { authorization: `Bearer ${options.apiKey}`, ...given, accept: 'application/json' };
    if (spec.body) headers['content-type'] = 'application/json';
    const idempotencyKey = spec.idempotent ? (callOptions.idempotencyKey ?? headerKey ?? newKey()) : null;
    if (idempotencyKey !== null) headers['idempotency-key'] = idempotencyKey;
    return { headers, idempotencyKey };
  }

  /**
   * An attempt's signal: aborted by the caller's (with its reason) or, after `timeoutMs`, with a
   * TimeoutError of ours, which `timedOut()` tells apart. `end()` stops the timer.
   */
  function attemptLimit(signal: AbortSignal | undefined) {
    const timeout = new DOMException(`timed out after ${timeoutMs} ms`, 'TimeoutError');
    if (timeoutMs === null) return { signal, timeout, timedOut: () => false, end: () => {} };
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(timeout), timeoutMs);
    const forward = () => controller.abort(signal?.reason);
    if (signal?.aborted) forward();
    else signal?.addEventListener('abort', forward, { once: true });
    return {
      signal: controller.signal,
      timeout,
      timedOut: () => controller.signal.reason === timeout,
      end: () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', forward);
      },
    };
  }

  /** Waits `ms` (through the injected `sleep` when given), ending early when `signal` aborts. */
  function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
    if (signal?.aborted) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const timer = options.sleep ? undefined : setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        resolve();
      }
      signal?.addEventListener('abort', done, { once: true });
      options.sleep?.(ms).then(done, (err: unknown) => {
        signal?.removeEventListener('abort', done);
        reject(err);
      });
    });
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

  async function* pages(operationId: OperationId, input: Record<string, unknown> = {}, callOptions: CallOptions = {}): AsyncIterableIterator<unknown> {
    if (!OPERATIONS[operationId].list) throw new TypeError(`${operationId} is not a cursor list`);
    let cursor: string | null = null;
    do {
      const page = await call(operationId, cursor === null ? input : nextPage(input, cursor), callOptions);
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
    const signal = feedOptions.signal;
    let after = feedOptions.after ?? null;
    const filters: Record<string, unknown> = { limit: feedOptions.limit ?? 250 };
    if (feedOptions.types?.length) filters.types = feedOptions.types.join(',');
    // An aborted signal ends the feed (it returns), whether it came during a request or a poll wait.
    for (;;) {
      let page: unknown;
      try {
        // Each page asks for what comes after the last position seen: the feed's own resume rule.
        page = await call(operationId, after === null ? filters : { ...filters, after }, { signal });
      } catch (err) {
        if (signal?.aborted) return;
        throw err;
      }
      const items = isRecord(page) && Array.isArray(page.data) ? page.data : [];
      for (const item of items) {
        if (signal?.aborted) return;
        yield item;
        if (isRecord(item) && typeof item.position === 'string') after = item.position;
      }
      const more = isRecord(page) && isRecord(page.meta) && typeof page.meta.next_cursor === 'string';
      if (more) continue;
      if (!feedOptions.follow || signal?.aborted) return;
      await pause(feedOptions.pollIntervalMs ?? 2_000, signal);
      if (signal?.aborted) return;
    }
  }

  const client: Record<string, unknown> = { pages, paginate, feed };
  for (const operationId of Object.keys(OPERATIONS)) {
    if (isOperationId(operationId)) client[operationId] = (input?: Record<string, unknown>, callOptions?: CallOptions) => call(operationId, input, callOptions);
  }
  // The table above is the runtime form of the `Client` type: both come from OPERATIONS.
  return client as unknown as Client;
}

/** The base URL without trailing slashes; anything but an absolute http(s) URL is a configuration error, refused at once. */
function checkedBaseUrl(baseUrl: string): string {
  let url: URL | null = null;
  try {
    url = new URL(baseUrl);
  } catch {
    // Not a URL at all (no scheme: "127.0.0.1:4410"): refused below.
  }
  if (url === null || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.search !== '' || url.hash !== '') {
    const hint = typeof baseUrl === 'string' && !/^[a-z][a-z0-9+.-]*:\/\//i.test(baseUrl) ? ` (did you mean "http://${baseUrl}"?)` : '';
    throw new TypeError(
      `baseUrl must be an absolute http(s) URL without query or fragment, such as "https://api.example.com"; got ${JSON.stringify(baseUrl)}${hint}`,
    );
  }
  // Named without echoing the URL: it holds a password. fetch refused it at every call, its message showing it.
  if (url.username !== '' || url.password !== '') throw new TypeError('baseUrl must not hold credentials (user:password@): the API key goes in apiKey');
  return baseUrl.replace(/\/+$/, '');
}

/** Milliseconds an attempt may take, null for no limit (0, Infinity, or beyond what setTimeout can wait). */
function checkedTimeout(timeoutMs: number | undefined): number | null {
  const ms = timeoutMs ?? 30_000;
  if (typeof ms !== 'number' || Number.isNaN(ms) || ms < 0)
    throw new TypeError(`timeoutMs must be a number of milliseconds ≥ 0 (0 or Infinity: none); got ${String(timeoutMs)}`);
  return ms === 0 || ms > 2 ** 31 - 1 ? null : ms;
}

// undici's codes for a request it will not send (a `transfer-encoding`, `expect` or `upgrade` header
// of the caller's): under its "fetch failed", as its network failures are (ECONNREFUSED, UND_ERR_SOCKET).
const UNDICI_REFUSALS = new Set(['UND_ERR_INVALID_ARG', 'UND_ERR_NOT_SUPPORTED']);

/**
 * Why fetch refused to send this request, or null when its failure was the network's. fetch rejects
 * with a TypeError for both, but a refused request is refused alike on every attempt: retried, it
 * ended, after every backoff, as a NetworkError that hid what to fix. Refused is what the Fetch
 * standard's Request refuses (a header value with a line break inside, as a key read from a file can
 * have; a header name with a space; credentials in the URL), asked again here so that the rule holds
 * in every runtime and for an injected fetch; and what undici refuses beneath it. A header at fault
 * is named, its value never shown: it may be the API key.
 */
function refusal(
  operationId: OperationId,
  err: unknown,
  request: { url: string; method: string; headers: Record<string, string>; body: string | undefined },
  apiKey: string,
): TypeError | null {
  try {
    void new Request(request.url, { method: request.method, headers: request.headers, body: request.body });
  } catch (refused) {
    for (const [name, value] of Object.entries(request.headers)) {
      if (!sendableHeader(name, '')) return new TypeError(`${operationId}: the header name ${JSON.stringify(name)} cannot be sent: it is not an HTTP token`);
      if (!sendableHeader(name, value)) {
        const what = name === 'authorization' && value === `Bearer ${apiKey}` ? ' ("Bearer " and apiKey)' : '';
        return new TypeError(`${operationId}: the "${name}" header cannot be sent: its value${what} holds a line break, a NUL or a character beyond U+00FF`);
      }
    }
    return refused instanceof TypeError ? refused : new TypeError(String(refused), { cause: refused });
  }
  let cause = err instanceof Error ? err.cause : undefined;
  for (let depth = 0; cause instanceof Error && depth < 8; depth++, cause = cause.cause) {
    if ('code' in cause && typeof cause.code === 'string' && UNDICI_REFUSALS.has(cause.code)) {
      return new TypeError(`${operationId}: fetch refuses the request: ${cause.message}`, { cause: err });
    }
  }
  return null;
}

function sendableHeader(name: string, value: string): boolean {
  try {
    void new Headers([[name, value]]);
    return true;
  } catch {
    return false;
  }
}

function isOperationId(name: string): name is OperationId {
  return Object.hasOwn(OPERATIONS, name);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The next page's input: the filters and the cursor, which carries the position (with it, `after` is refused). */
function nextPage(input: Record<string, unknown>, cursor: string): Record<string, unknown> {
  const { after: _position, ...filters } = input;
  return { ...filters, cursor };
}

/**
 * A 2xx body as the operation promises it: JSON, and for a list a page (`data` array, `meta`);
 * 204 and 205 carry none. Anything else (an HTML page, a truncated or empty body) is an Error.
 */
function successBody(operationId: OperationId, status: number, text: string): { value: unknown } | Error {
  if (status === 204 || status === 205) return { value: undefined };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return err instanceof Error ? err : new SyntaxError(String(err));
  }
  if (OPERATIONS[operationId].list && !(isRecord(value) && Array.isArray(value.data) && isRecord(value.meta))) {
    return new SyntaxError(`a page of ${operationId} has a data array and a meta object, this body has not`);
  }
  return { value };
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const IMF_FIXDATE = /^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), (\d{2}) ([A-Z][a-z]{2}) (\d{4}) (\d{2}):(\d{2}):(\d{2}) GMT$/;
const RFC_850 = /^(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday), (\d{2})-([A-Z][a-z]{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2}) GMT$/;
const ASCTIME = /^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) ([A-Z][a-z]{2}) (\d{2}| \d) (\d{2}):(\d{2}):(\d{2}) (\d{4})$/;

/**
 * Milliseconds a Retry-After asks to wait: delay-seconds, or an HTTP-date (RFC 9110 §10.2.3:
 * IMF-fixdate, or the obsolete RFC 850 and asctime forms). Anything else ("1.5", "-3") is null,
 * so the caller falls back to its backoff rather than reading it as some date.
 */
function retryAfterMs(value: string | null, now: number): number | null {
  if (value === null) return null;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const at = httpDate(v, now);
  return at === null ? null : Math.max(0, at - now);
}

function httpDate(v: string, now: number): number | null {
  let m = IMF_FIXDATE.exec(v);
  if (m) return utc(Number(m[3]), m[2], m[1], m[4], m[5], m[6]);
  m = RFC_850.exec(v);
  if (m) {
    // A two-digit year more than 50 years ahead is in the past century (RFC 9110 §5.6.7).
    const thisYear = new Date(now).getUTCFullYear();
    let year = thisYear - (thisYear % 100) + Number(m[3]);
    if (year > thisYear + 50) year -= 100;
    return utc(year, m[2], m[1], m[4], m[5], m[6]);
  }
  m = ASCTIME.exec(v);
  if (m) return utc(Number(m[6]), m[1], m[2].trim(), m[3], m[4], m[5]);
  return null;
}

function utc(year: number, monthName: string, day: string, hour: string, minute: string, second: string): number | null {
  const month = MONTHS.indexOf(monthName);
  const [d, h, min, s] = [day, hour, minute, second].map(Number);
  const date = Date.UTC(year, month, d);
  if (month < 0 || h > 23 || min > 59 || s > 60 || new Date(date).getUTCDate() !== d) return null;
  return date + ((h * 60 + min) * 60 + s) * 1000;
}

function parseJson(text: string): unknown {
  if (text === '') return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
