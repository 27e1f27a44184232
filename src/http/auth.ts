// Integration API authentication: Bearer first, X-API-Key only without Authorization; then the
// rate limit (per key, or per client address without a valid key); then the route's scope.
import type { FastifyRequest, FastifyReply } from 'fastify';
import { AppError } from './errors.ts';
import { keyStore } from './keys.ts';
import { effectiveScopes } from './scopes.ts';
import { bearerToken, headerCount, unauthorized } from './tokens.ts';

function presentedSecret(req: FastifyRequest): string | null {
  const authorization = req.headers.authorization;
  if (authorization !== undefined) {
    // Node keeps the first of several Authorization headers and drops the rest: which key would
    // act is a guess, so two are a malformed header (RFC 9110 allows one).
    if (headerCount(req.raw.rawHeaders, 'authorization') > 1) throw unauthorized('Send one Authorization header.');
    const token = bearerToken(authorization);
    if (token === null) throw unauthorized('The Authorization header must be "Bearer <API key>".');
    return token;
  }
  const apiKey = req.headers['x-api-key'];
  if (typeof apiKey === 'string' && apiKey.trim() !== '') return apiKey.trim();
  return null;
}

export async function authenticate(req: FastifyRequest, reply: FastifyReply): Promise<void> {
  req.auth = null;
  let secret: string | null = null;
  let headerError: AppError | null = null;
  try {
    secret = presentedSecret(req);
  } catch (err) {
    headerError = err as AppError;
  }
  const keys = keyStore(req.server.db);
  const key = secret ? await keys.find(secret) : undefined;
  // Known keys, revoked ones included, are named in the request log (a merchant debugging a 401 sees it).
  req.loggedKey = key ? { id: key.id, merchantId: key.merchant_id } : null;
  const valid = key && !key.revoked_at ? key : undefined;
  await req.server.checkRateLimit(req, reply, valid ? `key:${valid.id}` : `ip:${req.ip}`);

  if (headerError) throw headerError;
  if (!secret) throw unauthorized('An API key is required: send "Authorization: Bearer <API key>".');
  if (!key) throw unauthorized('The API key is not valid.');
  if (key.revoked_at) throw unauthorized('This API key has been revoked.');

  req.auth = {
    merchantId: key.merchant_id,
    apiKeyId: key.id,
    scopes: effectiveScopes(key.scopes),
    locationIds: key.location_ids,
  };
  const scope = req.routeOptions.config.scope;
  if (scope && !req.auth.scopes.has(scope)) {
    throw new AppError('insufficient_scope', `This endpoint needs the scope "${scope}".`);
  }
  // last_used_at: written within a second by one statement for every key used (src/http/keys.ts).
  keys.touch(key);
  // The merchant's turn: held until the answer has gone out (src/http/merchant-share.ts).
  const endTurn = await req.server.merchantShare.take(key.merchant_id);
  if (reply.raw.closed) endTurn();
  else reply.raw.once('close', endTurn);
}
