// The request context every service function takes first.
import type { FastifyRequest } from 'fastify';
import type { Database } from '../db/database.ts';
import type { Scope } from '../db/scope.ts';
import { AppError } from './errors.ts';
import { unauthorized } from './tokens.ts';

/** A request's scope (src/db/scope.ts: merchant and visible locations) with the handle to run on. */
export interface Ctx extends Scope {
  db: Database;
  /** The API key making the request (null for the operator API and the portal). */
  apiKeyId: string | null;
}

export interface AuthInfo {
  merchantId: string;
  apiKeyId: string;
  scopes: ReadonlySet<string>;
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
    /** Set only by idempotentRoute (src/http/idempotency.ts): validation errors are answered and stored there. */
    idempotent?: boolean;
    /** The body schema allows only `{}`: a request without any body (no Content-Type) is taken as `{}`. */
    emptyBodyOptional?: boolean;
  }
}

export function ctxOf(req: FastifyRequest): Ctx {
  if (!req.auth) throw unauthorized('An API key is required.');
  return { db: req.server.db, merchantId: req.auth.merchantId, apiKeyId: req.auth.apiKeyId, locationIds: req.auth.locationIds };
}

export function operatorCtx(req: Pick<FastifyRequest, 'server'>, merchantId: string): Ctx {
  return { db: req.server.db, merchantId, apiKeyId: null, locationIds: null };
}

/** Scope a body flag needs (e.g. `submit: true` → products.submit). */
export function requireScope(req: FastifyRequest, scope: string): void {
  if (!req.auth?.scopes.has(scope)) {
    throw new AppError('insufficient_scope', `This request needs the scope "${scope}".`);
  }
}
