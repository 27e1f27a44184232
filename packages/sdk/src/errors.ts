// Errors the client throws: ApiError for an answer that is not 2xx (an RFC 9457 problem),
// NetworkError when no usable answer came (after the retries the operation allows): none at all,
// one cut off mid-body, or a 2xx whose body is not the JSON the operation returns.
import type { ErrorCode } from './generated/operations.js';

/** A code the document declares, or one it does not know yet (a newer server, a proxy's `http_502`). */
export type AnyErrorCode = ErrorCode | (string & {});

export interface FieldError {
  /** JSON pointer of the offending field, e.g. `/items/0/quantity`. */
  path: string;
  message: string;
  code: string;
}

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: AnyErrorCode;
  request_id: string;
  errors?: FieldError[];
}

export class ApiError extends Error {
  readonly name = 'ApiError';
  readonly status: number;
  readonly code: AnyErrorCode;
  readonly errors: FieldError[];
  readonly request_id: string;
  readonly title: string;
  readonly detail: string;
  readonly operationId: string;
  /** Attempts made, this one included. */
  readonly attempts: number;
  /** The problem body as received (null when the body was not JSON). */
  readonly body: unknown;

  constructor(operationId: string, status: number, body: unknown, headerRequestId: string | null, attempts: number) {
    const p = isObject(body) ? body : {};
    const code = typeof p.code === 'string' ? p.code : `http_${status}`;
    const detail = typeof p.detail === 'string' ? p.detail : '';
    super(`${operationId}: ${status} ${code}${detail ? `: ${detail}` : ''}`);
    this.status = status;
    this.code = code;
    this.errors = Array.isArray(p.errors) ? p.errors.filter(isFieldError) : [];
    this.request_id = typeof p.request_id === 'string' ? p.request_id : (headerRequestId ?? '');
    this.title = typeof p.title === 'string' ? p.title : '';
    this.detail = detail;
    this.operationId = operationId;
    this.attempts = attempts;
    this.body = body;
  }
}

export class NetworkError extends Error {
  readonly name = 'NetworkError';
  readonly operationId: string;
  readonly attempts: number;
  /**
   * `answer`: what the last attempt got when an answer began but could not be used (`status`,
   * `problem`); `write` when the operation is a write which the server may have applied (an answer
   * began, or the attempt timed out after sending it).
   */
  constructor(operationId: string, cause: unknown, attempts: number, answer?: { status?: number; problem?: 'cut_off' | 'not_json'; write: boolean }) {
    const after = `after ${attempts} attempt${attempts === 1 ? '' : 's'}`;
    const message = cause instanceof Error ? cause.message : String(cause);
    const underneath = networkDetail(cause);
    // "fetch failed" alone does not say what to fix: the system's code and address do.
    const reason = underneath && !message.includes(underneath) ? `${message} (${underneath})` : message;
    const what = answer?.problem === undefined ? 'no answer' : `the answer (${answer.status}) ${answer.problem === 'cut_off' ? 'was cut off' : 'was not JSON'}`;
    const applied = answer?.write ? '; the write may have been applied' : '';
    super(`${operationId}: ${what} ${after}: ${reason}${applied}`, { cause });
    this.operationId = operationId;
    this.attempts = attempts;
  }
}

/**
 * What lies under a fetch failure (`fetch failed` is undici's whole message; the rest is in its
 * `cause`): the first system code in the cause chain with its address (`ECONNREFUSED
 * 127.0.0.1:4999`, `ENOTFOUND api.example.invalid`) or message; else the innermost message.
 */
function networkDetail(err: unknown): string {
  let innermost = '';
  let c = err instanceof Error ? err.cause : undefined;
  for (let depth = 0; c instanceof Error && depth < 8; depth++, c = c.cause) {
    const code = 'code' in c && typeof c.code === 'string' ? c.code : null;
    if (code !== null) {
      // An AggregateError (one error per address tried) carries the addresses in its errors.
      const where = (c instanceof AggregateError ? c.errors : [c]).map(address).filter((a) => a !== '');
      if (where.length > 0) return `${code} ${where.join(', ')}`;
      return c.message === '' ? code : c.message.includes(code) ? c.message : `${code}: ${c.message}`;
    }
    if (c.message !== '') innermost = c.message;
  }
  return innermost;
}

/** `host:port` of a connect error, or the host name a lookup failed for; '' when it names neither. */
function address(e: unknown): string {
  if (!isObject(e)) return '';
  if (typeof e.address === 'string') {
    const host = e.address.includes(':') ? `[${e.address}]` : e.address;
    return typeof e.port === 'number' ? `${host}:${e.port}` : e.address;
  }
  return typeof e.hostname === 'string' ? e.hostname : '';
}

/** Narrows an unknown error to an ApiError, optionally with one of the given codes. */
export function isApiError(err: unknown, ...codes: AnyErrorCode[]): err is ApiError {
  return err instanceof ApiError && (codes.length === 0 || codes.some((c) => c === err.code));
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isFieldError(v: unknown): v is FieldError {
  return isObject(v) && typeof v.path === 'string' && typeof v.message === 'string' && typeof v.code === 'string';
}
