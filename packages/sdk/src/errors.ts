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
   * `answer`: what the last attempt got when an answer began but could not be used; `write` when
   * the operation is a write, which the server may then have applied.
   */
  constructor(operationId: string, cause: unknown, attempts: number, answer?: { status: number; problem: 'cut_off' | 'not_json'; write: boolean }) {
    const after = `after ${attempts} attempt${attempts === 1 ? '' : 's'}`;
    const reason = cause instanceof Error ? cause.message : String(cause);
    const what = answer === undefined ? 'no answer' : `the answer (${answer.status}) ${answer.problem === 'cut_off' ? 'was cut off' : 'was not JSON'}`;
    const applied = answer?.write ? '; the write may have been applied' : '';
    super(`${operationId}: ${what} ${after}: ${reason}${applied}`, { cause });
    this.operationId = operationId;
    this.attempts = attempts;
  }
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
