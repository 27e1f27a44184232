// The portal's client for /portal/api: JSON in and out, CSRF token on every state change, problem
// details turned into errors with a human message per field. Response types come from the
// backend's route schemas (src/portal/schemas.ts), imported as types only.
// The pages import the answer types from here.
export type {
  ApiKey,
  DeliveryDetail,
  EndpointWithHealth,
  FailingDelivery,
  Location,
  LoggedEvent,
  LoggedRequest,
  Meta,
  NewApiKey,
  NewEndpoint,
  Overview,
  PortalDelivery,
  SessionInfo,
} from '../../src/portal/schemas.ts';
import type { FieldError } from '../../src/http/errors.ts';

const FIELD_NAMES: Record<string, string> = {
  label: 'Label',
  scopes: 'Scopes',
  location_ids: 'Locations',
  url: 'URL',
  events: 'Events',
  description: 'Description',
  email: 'Email',
  password: 'Password',
  path: 'Path',
  request_id: 'Request id',
  key_id: 'Key',
  status_class: 'Status',
};

/** A sentence a person can act on, whatever the validator said. */
export function humanFieldMessage(e: FieldError): string {
  const field = e.path.split('/')[1] ?? '';
  const name = FIELD_NAMES[field] ?? (field ? field.replace(/_/g, ' ') : 'This form');
  const plural = field === 'scopes' || field === 'events' || field === 'location_ids';
  switch (e.code) {
    case 'required':
    case 'too_short':
      return `${name} ${plural ? 'are' : 'is'} required.`;
    case 'too_few':
      return `Choose at least one ${plural ? name.toLowerCase().replace(/s$/, '') : 'value'}.`;
    case 'too_long':
      return `${name} is too long.`;
    case 'too_many':
      return `${name}: too many chosen.`;
    case 'duplicate':
      return `${name}: each value may appear once.`;
    case 'unknown_field':
      return `${name} cannot be set here.`;
    case 'unknown_id':
      return `${name}: one of them no longer exists. Reload the page and choose again.`;
  }
  // Messages written by our own rules are already human ("must use https"); the validator's are not.
  if (/^must (NOT|match|be equal|have)|^must be (string|integer|number|array|object|boolean)/.test(e.message)) return `${name} is not valid.`;
  return `${name} ${e.message.replace(/\.$/, '')}.`;
}

export class ApiError extends Error {
  status: number;
  code: string;
  /** First human message per top-level field. */
  fields: Record<string, string>;
  /** The message only says to look at the fields' own messages. */
  pointsAtFields: boolean;
  constructor(status: number, body: { detail?: string; code?: string; errors?: FieldError[] }) {
    const fields: Record<string, string> = {};
    // An error at the whole body (path "", e.g. the merchant's endpoint limit) is no field's: the detail says it.
    const whole = (body.errors ?? []).some((e) => e.path === '');
    for (const e of body.errors ?? []) if (e.path !== '') fields[e.path.split('/')[1] ?? ''] ??= humanFieldMessage(e);
    const pointsAtFields = body.code === 'validation_failed' && !(whole && body.detail) && Object.keys(fields).length > 0;
    const message =
      body.code === 'validation_failed'
        ? whole && body.detail
          ? body.detail
          : pointsAtFields
            ? 'Check the highlighted fields.'
            : 'Some values are not valid.'
        : status === 0
          ? 'The server could not be reached. Check your connection and try again.'
          : (body.detail ?? `Something went wrong (HTTP ${status}). Try again.`);
    super(message);
    this.status = status;
    this.code = body.code ?? 'error';
    this.fields = fields;
    this.pointsAtFields = pointsAtFields;
  }
}

/** The message to show for any failure. */
export const failureText = (err: unknown) => (err instanceof ApiError ? err.message : 'Something went wrong. Try again.');

let csrf = '';
export const setCsrf = (token: string) => void (csrf = token);

/**
 * Called when an answer says the session is gone (signed out in another tab, or expired): the App
 * shows the sign-in form, and signing in returns to the page that was open. Without it a page kept
 * answering "Sign in first." with a Retry that could never work.
 */
let sessionLost: (() => void) | null = null;
export const onSessionLost = (fn: (() => void) | null) => void (sessionLost = fn);

/** The answer's error, with what the session and a rate limit's Retry-After mean for the person. */
function failure(res: Response, path: string, body: { detail?: string; code?: string; errors?: FieldError[] }): ApiError {
  if (res.status === 401 && path !== '/login') sessionLost?.();
  const seconds = Number(res.headers.get('retry-after'));
  if (res.status === 429 && body.detail && Number.isInteger(seconds) && seconds > 0) {
    body = { ...body, detail: `${body.detail.replace(/\s*Try again later\.?$/, '')} Try again in ${inAbout(seconds)}.` };
  }
  return new ApiError(res.status, body);
}

/** "40 seconds", "about 15 minutes", "about 2 hours". */
export function inAbout(seconds: number): string {
  if (seconds < 60) return `${seconds} second${seconds === 1 ? '' : 's'}`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `about ${minutes} minute${minutes === 1 ? '' : 's'}`;
  const hours = Math.round(minutes / 60);
  return `about ${hours} hour${hours === 1 ? '' : 's'}`;
}

export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET') headers['x-csrf-token'] = csrf;
  let res: Response;
  try {
    res = await fetch(`/portal/api${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), credentials: 'same-origin' });
  } catch {
    throw new ApiError(0, {});
  }
  const json = res.headers.get('content-type')?.includes('json') ? await res.json() : {};
  if (!res.ok) throw failure(res, path, json);
  return json.data as T;
}

/** `path` with the parameters that have a value as its query. */
export function withQuery(path: string, params: Record<string, string>) {
  const query = new URLSearchParams(Object.entries(params).filter(([, v]) => v)).toString();
  return query ? `${path}?${query}` : path;
}

/** A page of a newest-first list. */
export async function apiPage<T>(path: string): Promise<{ data: T[]; next_before: string | null }> {
  const res = await fetch(`/portal/api${path}`, { credentials: 'same-origin' }).catch(() => null);
  if (!res) throw new ApiError(0, {});
  const json = await res.json().catch(() => ({}));
  if (!res.ok) throw failure(res, path, json);
  return json;
}

/**
 * Copies text. navigator.clipboard exists only in secure contexts (https, localhost); on plain http
 * elsewhere a selected off-screen textarea and execCommand('copy') still work.
 */
export async function copyText(text: string): Promise<boolean> {
  if (window.isSecureContext && navigator.clipboard) {
    try {
      await navigator.clipboard.writeText(text);
      return true;
    } catch {}
  }
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.style.position = 'fixed';
  area.style.top = '-1000px';
  document.body.appendChild(area);
  area.select();
  let ok = false;
  try {
    ok = document.execCommand('copy');
  } catch {}
  area.remove();
  return ok;
}

// In the browser's time zone, named (a merchant compares them with logs and answers in UTC).
export const when = (iso: string | null) =>
  iso
    ? new Date(iso).toLocaleString(undefined, { year: 'numeric', month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit', timeZoneName: 'short' })
    : '—';
export const whenExact = (iso: string) =>
  new Date(iso).toLocaleString(undefined, {
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    hour: 'numeric',
    minute: '2-digit',
    second: '2-digit',
    timeZoneName: 'short',
  });
export const percent = (n: number | null) => (n === null ? '—' : `${Math.round(n * 1000) / 10} %`);
