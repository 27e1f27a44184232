// The request context every service function takes first.
import type { FastifyRequest } from 'fastify';
import type { Database } from '../db/database.ts';
import { AppError } from './errors.ts';

export interface Ctx {
  db: Database;
  merchantId: string;
  /** The API key making the request (null for the operator API and the portal). */
  apiKeyId: string | null;
  /** Locations the caller may see; null means all of the merchant's locations. */
  locationIds: string[] | null;
}

export interface AuthInfo {
  merchantId: string;
  apiKeyId: string;
  scopes: Set<string>;
  locationIds: string[] | null;
}

declare module 'fastify' {
  interface FastifyRequest {
    auth: AuthInfo | null;
    /** The key a request presented, when it is one we know (for the request log). */
    loggedKey: { id: string; merchantId: string } | null;
  }
  interface FastifyContextConfig {
    /** Scope an integration route needs. */
    scope?: string;
    /** The route applies Idempotency-Key itself (and so handles its own validation errors). */
    idempotent?: boolean;
  }
}

export function ctxOf(req: FastifyRequest): Ctx {
  if (!req.auth) throw new AppError('unauthorized', 'An API key is required.', undefined, { 'WWW-Authenticate': 'Bearer' });
  return { db: req.server.db, merchantId: req.auth.merchantId, apiKeyId: req.auth.apiKeyId, locationIds: req.auth.locationIds };
}

export function operatorCtx(req: FastifyRequest, merchantId: string): Ctx {
  return { db: req.server.db, merchantId, apiKeyId: null, locationIds: null };
}

/** Scope a body flag needs (e.g. `submit: true` → products.submit). */
export function requireScope(req: FastifyRequest, scope: string): void {
  if (!req.auth?.scopes.has(scope)) {
    throw new AppError('insufficient_scope', `This request needs the scope "${scope}".`);
  }
}

export function canSeeLocation(ctx: Pick<Ctx, 'locationIds'>, locationId: string): boolean {
  return ctx.locationIds === null || ctx.locationIds.includes(locationId);
}
