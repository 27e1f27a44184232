// Idempotency-Key (contract §5), one mechanism for every write that supports it. A route becomes
// idempotent in one way only: it is registered with `idempotentRoute`, which sets the route flag
// (validation errors are then answered and stored here, not by app.ts), documents the header and
// runs the write under the key. The record commits in the write's own transaction; a concurrent
// duplicate is detected with a try-lock, so it never waits behind the first request's transaction.
import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest, FastifySchema } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { sql } from 'kysely';
import { Type, type Static, type TSchema } from 'typebox';
import type { Database } from '../db/database.ts';
import { idempotentReplays } from '../metrics.ts';
import { ctxOf, type Ctx } from './context.ts';
import { AppError, problem } from './errors.ts';
import { canonicalJson } from './serialize.ts';
import { unreadBodyDigest } from './json-body.ts';
import { headerCount } from './tokens.ts';
import { validationProblem } from './validation.ts';

export interface WriteResult {
  status: number;
  data: unknown;
  /** Path of the created resource, relative to the API's prefix (`/fulfillments/<id>`). */
  location?: string;
}

/** The Idempotency-Key request header (the document shares it as one parameter). */
export const IdempotencyHeader = Type.Object({
  'idempotency-key': Type.Optional(Type.String({ maxLength: 257, description: '1..255 printable ASCII; the same key and payload replays the stored answer.' })),
});

type TypeBoxApp = Parameters<FastifyPluginAsyncTypebox>[0];
type StaticOr<S, Otherwise> = S extends TSchema ? Static<S> : Otherwise;

/**
 * An integration write that supports Idempotency-Key. `write` runs in the write's transaction
 * (`ctx.db` is it) with the validated body and params; what it returns, or the AppError it throws
 * with a storable status, is answered and kept for replays.
 */
export function idempotentRoute<S extends FastifySchema & { body: TSchema }>(
  app: TypeBoxApp,
  method: 'POST' | 'PUT' | 'PATCH',
  path: string,
  options: {
    scope: string;
    schema: S;
    /** Checks of the request before the key is looked at (a scope the body asks for); never stored. */
    check?: (req: FastifyRequest) => void;
  },
  write: (ctx: Ctx, input: { body: Static<S['body']>; params: StaticOr<S['params'], Record<string, never>> }) => Promise<WriteResult>,
): void {
  // Registered with the plain schema type: the body and params reach `write` typed from S, once
  // the schema has validated them (or never, when it has not: see idempotentWrite).
  const schema: FastifySchema = { ...options.schema, headers: IdempotencyHeader };
  app.route({
    method,
    url: path,
    config: { scope: options.scope, idempotent: true },
    schema,
    handler: async (req, reply) => {
      options.check?.(req);
      const ctx = ctxOf(req);
      const input = { body: req.body, params: req.params } as Parameters<typeof write>[1];
      await idempotentWrite(req, reply, ctx.merchantId, async (trx) => {
        const result = await write({ ...ctx, db: trx }, input);
        return result.location ? { ...result, location: `${app.prefix}${result.location}` } : result;
      });
    },
  });
}

function parseKey(req: FastifyRequest): string | null {
  const raw = req.headers['idempotency-key'];
  if (raw === undefined) return null;
  // Node joins repeated headers into one value ("d1, d2"), a key nobody sent: two keys are a
  // malformed header, as two Authorization headers are (auth.ts).
  if (headerCount(req.raw.rawHeaders, 'idempotency-key') > 1) throw new AppError('malformed_request', 'Send one Idempotency-Key header.');
  let key = Array.isArray(raw) ? raw[0] : raw;
  // The draft's structured-field form: a quoted string.
  if (key.length >= 2 && key.startsWith('"') && key.endsWith('"')) key = key.slice(1, -1);
  if (key.length < 1 || key.length > 255 || !/^[\x20-\x7e]+$/.test(key)) {
    throw new AppError('malformed_request', 'Idempotency-Key must be 1 to 255 printable ASCII characters.');
  }
  return key;
}

/**
 * The path a key is scoped to: the route's, with its parameters as validated (ids in lower case).
 * The URL as sent named one resource several ways (an id in upper case, a trailing slash, a
 * percent-encoded letter), and each way was a scope of its own, so one key applied a write again.
 * A request to a canonical URL gives the same path as before.
 */
function scopePath(req: FastifyRequest): string {
  const pattern = req.routeOptions.url;
  if (pattern === undefined) return req.url.split('?')[0];
  const params = req.params as Record<string, string | undefined>;
  return pattern.replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(params[name] ?? ''));
}

const STORED_STATUSES = (status: number) => status < 500 && status !== 401 && status !== 403 && status !== 429;

/**
 * Run a write under the request's Idempotency-Key (when sent). `write` gets the transaction to
 * use; its AppErrors with a storable status are answered and stored like successes.
 */
async function idempotentWrite(
  req: FastifyRequest,
  reply: FastifyReply,
  merchantId: string,
  write: (trx: Database) => Promise<WriteResult>,
  payload: string = canonicalJson(req.body ?? null),
): Promise<unknown> {
  started.add(req);
  const key = parseKey(req);
  const run = (trx: Database) => {
    if (req.validationError) throw validationProblem(req.validationError);
    return write(trx);
  };
  if (key === null) {
    const result = await req.server.db.transaction().execute(run);
    return send(req, reply, result);
  }

  const path = scopePath(req);
  // A location-restricted key's locations are part of what it asked: another key of the merchant,
  // with other locations, sending the same body under the same key must not be answered the stored
  // result (it could name a record that key may not see); it is 422 idempotency_key_reused. An
  // unrestricted key's hash is the body's alone, as it always was.
  const locations = req.auth?.locationIds;
  const requestHash = createHash('sha256')
    .update(payload + (locations ? `\nlocations:${[...locations].sort().join(',')}` : ''))
    .digest('hex');
  const outcome = await req.server.db.transaction().execute(async (trx) => {
    const lockKey = `${merchantId}|${req.method}|${path}|${key}`;
    const { rows } = await sql<{ locked: boolean }>`select pg_try_advisory_xact_lock(hashtextextended(${lockKey}, 0)) as locked`.execute(trx);
    if (!rows[0].locked) {
      throw new AppError('idempotency_in_progress', 'A request with this Idempotency-Key is still being processed.', undefined, {
        'Retry-After': '1',
      });
    }
    const previous = await trx
      .selectFrom('idempotency_keys')
      .select(['request_hash', 'status_code', 'body', 'location'])
      .where('merchant_id', '=', merchantId)
      .where('method', '=', req.method)
      .where('path', '=', path)
      .where('key', '=', key)
      .executeTakeFirst();
    if (previous) {
      if (previous.request_hash !== requestHash) {
        // The hash covers the key's location restriction too (a stored answer may show another location's records).
        throw new AppError(
          'idempotency_key_reused',
          'This Idempotency-Key was used before with a different payload, or by an API key restricted to other locations (a stored answer is replayed only to a key with the same locations). Use a new Idempotency-Key for a different request.',
        );
      }
      return { replay: true as const, status: previous.status_code, body: previous.body, location: previous.location };
    }

    await sql`savepoint idempotent_write`.execute(trx);
    let status: number;
    let body: unknown;
    let location: string | null = null;
    try {
      const result = await run(trx);
      status = result.status;
      body = { data: result.data, request_id: req.id };
      location = result.location ?? null;
    } catch (err) {
      if (!(err instanceof AppError) || !STORED_STATUSES(err.status)) throw err;
      // The write rolls back; its answer is still kept, in this same transaction.
      await sql`rollback to savepoint idempotent_write`.execute(trx);
      status = err.status;
      body = problem(err, req.id);
    }
    await trx
      .insertInto('idempotency_keys')
      .values({ merchant_id: merchantId, method: req.method, path, key, request_hash: requestHash, status_code: status, body: JSON.stringify(body), location })
      .execute();
    return { replay: false as const, status, body, location };
  });

  if (outcome.replay) {
    reply.header('Idempotent-Replayed', 'true');
    idempotentReplays.inc({ route: req.routeOptions.url ?? path });
  }
  if (outcome.location) reply.header('Location', outcome.location);
  if (outcome.status >= 400) reply.type('application/problem+json');
  return reply.code(outcome.status).send(outcome.body);
}

/** Requests whose write ran under idempotentWrite: their errors are its, never stored again here. */
const started = new WeakSet<FastifyRequest>();

/**
 * An answer given before an idempotent write's body was read (400 for a body that is not JSON,
 * 413, 415, a key the JSON parser refuses), to a request with a valid Idempotency-Key: stored
 * under the key and replayed like the write's own answers (contract §5: every final answer but
 * 401, 403, 429 and 5xx). Its payload is what was sent: the refused body's bytes (json-body.ts), or,
 * for a body never read, its type and length. So the same request replays the refusal, and a
 * corrected one under the same key is 422 idempotency_key_reused. False when not such a request.
 */
export async function answerBeforeBody(req: FastifyRequest, reply: FastifyReply, err: AppError): Promise<boolean> {
  if (!req.routeOptions.config.idempotent || started.has(req) || req.auth === null || !STORED_STATUSES(err.status)) return false;
  let key: string | null;
  try {
    key = parseKey(req);
  } catch {
    return false; // a malformed key: the body's own refusal is the answer, stored under nothing
  }
  if (key === null) return false;
  const digest = unreadBodyDigest.get(req);
  const payload = `unread:${req.headers['content-type'] ?? ''}\n${digest ?? `length:${req.headers['content-length'] ?? req.headers['transfer-encoding'] ?? ''}`}`;
  await idempotentWrite(
    req,
    reply,
    req.auth.merchantId,
    () => {
      throw err;
    },
    payload,
  );
  return true;
}

function send(req: FastifyRequest, reply: FastifyReply, result: WriteResult) {
  if (result.location) reply.header('Location', result.location);
  return reply.code(result.status).send({ data: result.data, request_id: req.id });
}
