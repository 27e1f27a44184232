// Portal sign-in: argon2id passwords, server-side sessions behind an HttpOnly cookie, a CSRF
// token per session for every state change, and a throttle on failed sign-ins (throttle.ts).
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type {} from '@fastify/cookie';
import type { Database } from '../db/database.ts';
import { merchantScope } from '../db/scope.ts';
import { operatorCtx, type Ctx } from '../http/context.ts';
import { AppError } from '../http/errors.ts';
import { verifyPassword } from '../modules/merchants/passwords.ts';
import { normaliseEmail } from '../modules/merchants/service.ts';
import { deleteSession, extendSession, findLiveSession, findSignInUser, insertSession } from './queries.ts';
import type { SignInThrottle } from './throttle.ts';

export const COOKIE = 'mia_session';
const IDLE_HOURS = 12;

export interface Session {
  id: string;
  merchantId: string;
  merchantName: string;
  userId: string;
  email: string;
  csrfToken: string;
}

const hash = (token: string) => createHash('sha256').update(token).digest('hex');

// Spend the same time on unknown emails as on wrong passwords.
const DUMMY_HASH = '$argon2id$v=19$m=19456,t=2,p=1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';

export async function signIn(
  db: Database,
  throttle: SignInThrottle,
  givenEmail: string,
  password: string,
  ip: string,
): Promise<{ token: string; session: Session }> {
  const email = normaliseEmail(givenEmail);
  await throttle.attempt(email, ip);
  const user = await findSignInUser(db, email);
  const ok = await verifyPassword(password, user?.password_hash ?? DUMMY_HASH);
  if (!user || !ok) throw new AppError('unauthorized', 'The email or password is not correct.');
  await throttle.succeeded(email, ip);
  const token = randomBytes(32).toString('base64url');
  const csrfToken = randomBytes(24).toString('base64url');
  await insertSession(db, merchantScope(user.merchant_id), { id: hash(token), user_id: user.id, csrf_token: csrfToken }, IDLE_HOURS);
  return { token, session: { id: hash(token), merchantId: user.merchant_id, merchantName: user.merchant_name, userId: user.id, email: user.email, csrfToken } };
}

/** The live session `token` names; `extended` when this lookup moved its expiry (the cookie must follow). */
export async function findSession(db: Database, token: string | undefined): Promise<{ session: Session; extended: boolean } | null> {
  if (!token) return null;
  const row = await findLiveSession(db, hash(token));
  if (!row) return null;
  // Sliding expiry, written at most once a minute.
  const extended = Date.now() - row.last_seen_at.getTime() > 60_000;
  if (extended) await extendSession(db, merchantScope(row.merchant_id), row.id, IDLE_HOURS);
  const session = {
    id: row.id,
    merchantId: row.merchant_id,
    merchantName: row.merchant_name,
    userId: row.user_id,
    email: row.email,
    csrfToken: row.csrf_token,
  };
  return { session, extended };
}

export async function signOut(db: Database, session: Session) {
  await deleteSession(db, merchantScope(session.merchantId), session.id);
}

/** A signed-in request's context: the session's merchant, every location. */
export function portalCtx(req: FastifyRequest): Ctx {
  return operatorCtx(req, req.session!.merchantId);
}

export function isHttps(req: FastifyRequest, publicBaseUrl: string | null) {
  return req.protocol === 'https' || req.headers['x-forwarded-proto'] === 'https' || (publicBaseUrl?.startsWith('https://') ?? false);
}

/** Max-Age is the idle lifetime the server just gave the session (at sign-in or on extending it). */
export function setSessionCookie(reply: FastifyReply, req: FastifyRequest, token: string, publicBaseUrl: string | null) {
  reply.setCookie(COOKIE, token, { httpOnly: true, sameSite: 'lax', path: '/', secure: isHttps(req, publicBaseUrl), maxAge: IDLE_HOURS * 3600 });
}

export function clearSessionCookie(reply: FastifyReply, req: FastifyRequest, publicBaseUrl: string | null) {
  reply.clearCookie(COOKIE, { path: '/', httpOnly: true, sameSite: 'lax', secure: isHttps(req, publicBaseUrl) });
}

/** State changes need the session's CSRF token in X-CSRF-Token, and a same-origin Origin when sent. */
export function checkCsrf(req: FastifyRequest, session: Session) {
  const origin = req.headers.origin;
  if (origin) {
    let host = '';
    try {
      host = new URL(origin).host;
    } catch {}
    if (host !== req.headers.host) throw new AppError('forbidden', 'Cross-origin request refused.');
  }
  const given = Buffer.from(String(req.headers['x-csrf-token'] ?? ''));
  const expected = Buffer.from(session.csrfToken);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw new AppError('forbidden', 'Missing or wrong CSRF token (send the X-CSRF-Token header from GET /portal/api/session).');
  }
}
