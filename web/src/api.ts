// The portal's client for /portal/api: JSON in and out, CSRF token on every state change, problem
// details turned into errors that know which field they are about.

export interface FieldError { path: string; message: string; code: string }

export class ApiError extends Error {
  status: number;
  code: string;
  fields: Record<string, string>;
  constructor(status: number, body: { detail?: string; code?: string; errors?: FieldError[] }) {
    super(body.detail ?? `Request failed (${status})`);
    this.status = status;
    this.code = body.code ?? 'error';
    this.fields = {};
    for (const e of body.errors ?? []) {
      const field = e.path.split('/')[1] ?? '';
      this.fields[field] ??= e.message;
    }
  }
}

let csrf = '';
export const setCsrf = (token: string) => void (csrf = token);

export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET') headers['x-csrf-token'] = csrf;
  const res = await fetch(`/portal/api${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), credentials: 'same-origin' });
  const json = res.headers.get('content-type')?.includes('json') ? await res.json() : {};
  if (!res.ok) throw new ApiError(res.status, json);
  return json.data as T;
}

export interface Location { id: string; name: string }
export interface ApiKey { id: string; label: string; prefix: string; scopes: string[]; location_ids: string[] | null; created_at: string; last_used_at: string | null; revoked_at: string | null; secret?: string }
export interface Endpoint { id: string; url: string; description: string | null; events: string[]; location_ids: string[] | null; status: 'enabled' | 'disabled'; created_at: string; signing_secret?: string }
export interface Delivery { id: string; event_id: string; event_type: string; status: 'pending' | 'delivered' | 'failed'; attempts: number; last_status_code: number | null; next_attempt_at: string | null; created_at: string; updated_at: string }
export interface Meta { scopes: string[]; warehouse_scopes: string[]; event_types: string[]; warehouse_events: string[] }
export interface SessionInfo { user: { id: string; email: string }; merchant: { id: string; name: string }; csrf_token: string }

export const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' }) : '—');
