// Webhook endpoint records and their rules, shared by the operator API and the portal.
import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import type { Ctx } from '../../http/context.ts';
import { invalidFields, type FieldError } from '../../http/errors.ts';
import { iso } from '../../http/serialize.ts';
import { checkLocationIds } from '../api-keys/service.ts';
import { EVENT_TYPES } from '../../events/outbox.ts';

export const newSigningSecret = () => `whsec_${randomBytes(32).toString('base64url')}`;

export interface EndpointInput {
  url: string;
  events: string[];
  location_ids?: string[] | null;
  description?: string | null;
}

type EndpointRow = {
  id: string;
  url: string;
  description: string | null;
  events: string[];
  location_ids: string[] | null;
  status: 'enabled' | 'disabled';
  created_at: Date;
  updated_at: Date;
};

export const endpointColumns = ['id', 'url', 'description', 'events', 'location_ids', 'status', 'created_at', 'updated_at'] as const;

export function presentEndpoint(e: EndpointRow) {
  return {
    id: e.id,
    url: e.url,
    description: e.description,
    events: e.events,
    location_ids: e.location_ids,
    status: e.status,
    created_at: iso(e.created_at),
    updated_at: iso(e.updated_at),
  };
}

/** Private, loopback, link-local, CGNAT, metadata and unspecified addresses. */
export function isPrivateAddress(address: string): boolean {
  const v = isIP(address);
  if (v === 4) {
    const [a, b] = address.split('.').map(Number);
    return (
      a === 0 || a === 10 || a === 127 || (a === 169 && b === 254) || (a === 172 && b >= 16 && b <= 31) ||
      (a === 192 && b === 168) || (a === 100 && b >= 64 && b <= 127) || a >= 224
    );
  }
  if (v === 6) {
    const lower = address.toLowerCase();
    if (lower === '::' || lower === '::1') return true;
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
    if (mapped) return isPrivateAddress(mapped[1]);
    return /^(fc|fd|fe8|fe9|fea|feb|ff)/.test(lower);
  }
  return false;
}

/** URL rules at save time; the address actually connected to is checked again at delivery. */
export function urlProblems(url: string, allowPrivate: boolean, path = '/url'): FieldError[] {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return [{ path, message: 'must be an absolute URL', code: 'invalid_format' }];
  }
  if (parsed.username || parsed.password) return [{ path, message: 'must not contain credentials', code: 'invalid_format' }];
  if (allowPrivate) {
    if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return [{ path, message: 'must be an http(s) URL', code: 'invalid_format' }];
    return [];
  }
  if (parsed.protocol !== 'https:') return [{ path, message: 'must use https', code: 'invalid_format' }];
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost' || host.endsWith('.localhost') || host.endsWith('.internal') || isPrivateAddress(host)) {
    return [{ path, message: 'must not point at a private, loopback or link-local address', code: 'forbidden_address' }];
  }
  return [];
}

export async function validateEndpointInput(ctx: Ctx, input: Partial<EndpointInput>, allowPrivate: boolean) {
  const errors: FieldError[] = [];
  if (input.url !== undefined) errors.push(...urlProblems(input.url, allowPrivate));
  input.events?.forEach((e, i) => {
    if (!(EVENT_TYPES as readonly string[]).includes(e)) errors.push({ path: `/events/${i}`, message: `unknown event type "${e}"`, code: 'invalid_value' });
  });
  if (errors.length) throw invalidFields(errors);
  await checkLocationIds(ctx.db, ctx.merchantId, input.location_ids, '/location_ids');
}

export async function createEndpoint(ctx: Ctx, input: EndpointInput, allowPrivate: boolean) {
  await validateEndpointInput(ctx, input, allowPrivate);
  const signing_secret = newSigningSecret();
  const row = await ctx.db
    .insertInto('webhook_endpoints')
    .values({
      merchant_id: ctx.merchantId,
      url: input.url,
      description: input.description ?? null,
      events: [...new Set(input.events)],
      location_ids: input.location_ids && input.location_ids.length ? [...new Set(input.location_ids)] : null,
      signing_secret,
    })
    .returning(endpointColumns)
    .executeTakeFirstOrThrow();
  return { ...presentEndpoint(row), signing_secret };
}

export async function listEndpoints(ctx: Ctx) {
  const rows = await ctx.db
    .selectFrom('webhook_endpoints')
    .select(endpointColumns)
    .where('merchant_id', '=', ctx.merchantId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
  return rows.map(presentEndpoint);
}
