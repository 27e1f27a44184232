// How a JSON body is read: as UTF-8 bytes, or not at all. Fastify's own parser decodes the body
// with replacement characters, so invalid UTF-8 (or Latin-1 sent as `charset=iso-8859-1`) was
// stored as U+FFFD without a word, and it ignored Content-Encoding, so a gzip body was "not valid
// JSON" and a `br` one was applied as if plain. Now, for a route that takes a body:
// - a Content-Encoding other than identity is 415 (we decode none);
// - a charset other than UTF-8 is 415 (RFC 8259 §8.1: JSON between systems is UTF-8);
// - bytes that are not well-formed UTF-8 are 400 malformed_request.
// The JSON itself is still parsed by Fastify's parser; a prototype-poisoning key is 422 naming it
// (it was 400 "not valid JSON").
import { isUtf8 } from 'node:buffer';
import { hash } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError, invalidFields, type FieldError } from './errors.ts';
import { countHeader } from './headers.ts';
import { escapePointer } from './validation.ts';

/** The SHA-256 of a JSON body the parser refused (not UTF-8, not JSON, a refused key), by request. */
export const unreadBodyDigest = new WeakMap<FastifyRequest, string>();

const CHARSET = /;\s*charset\s*=\s*"?([^";\s]*)"?/i;

/** The request's route takes a body (a write with a body schema). */
export const takesBody = (req: FastifyRequest) => Boolean(req.routeOptions.schema?.body) && req.method !== 'GET' && req.method !== 'DELETE';

export function registerJsonBody(app: FastifyInstance) {
  app.addHook('preParsing', (req, _reply, payload, done) => {
    if (!takesBody(req)) return done(null, payload);
    // Node keeps the first of two Content-Type headers, so the second was never looked at.
    if (countHeader(req.raw.rawHeaders, 'content-type') > 1) return done(new AppError('malformed_request', 'Send one Content-Type header.'));
    // Node decodes chunked framing only: another transfer coding's bytes were taken as the body.
    const transfer = req.headers['transfer-encoding'];
    if (transfer !== undefined && transfer.trim().toLowerCase() !== 'chunked') {
      return done(
        new AppError('unsupported_media_type', `Transfer-Encoding "${transfer}" is not supported: send the body uncompressed, chunked or with Content-Length.`),
      );
    }
    const encoding = req.headers['content-encoding']?.trim().toLowerCase();
    if (encoding && encoding !== 'identity') {
      return done(new AppError('unsupported_media_type', `Content-Encoding "${encoding}" is not supported: send the body uncompressed.`));
    }
    const charset = CHARSET.exec(req.headers['content-type'] ?? '')?.[1].toLowerCase();
    if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
      return done(new AppError('unsupported_media_type', `The charset "${charset}" is not supported: send the body as UTF-8 JSON.`));
    }
    done(null, payload);
  });

  const parse = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (req, body, done) => {
    // No route takes it: the answer is the 404, whatever the body holds.
    if (req.is404) return done(null, undefined);
    const bytes = body as Buffer;
    // A body refused here is kept as its digest: an Idempotency-Key stores the refusal under it
    // (src/http/idempotency.ts, answerBeforeBody), and the same bytes sent again replay it.
    const refuse = (err: Error) => {
      unreadBodyDigest.set(req, hash('sha256', bytes, 'hex'));
      done(err, undefined);
    };
    if (!isUtf8(bytes)) return refuse(new AppError('malformed_request', 'The body is not valid UTF-8.'));
    const text = bytes.toString('utf8');
    // Fastify's JSON parser is synchronous: it calls back and returns nothing (its type allows a promise).
    void parse(req, text, (err, value) => {
      if (!err) {
        const unrepresentable = unrepresentableNumbers(text);
        return unrepresentable.length ? refuse(invalidFields(unrepresentable)) : done(null, value);
      }
      // A "__proto__" key (or "constructor" holding "prototype") is refused by the parser as if the
      // body were not JSON; it is valid JSON with a key we refuse, so it is named like any unknown field.
      const at = forbiddenKeyIn(text);
      refuse(
        at === null ? err : invalidFields([{ path: at, message: 'is a key the service refuses (it could change an object prototype)', code: 'unknown_field' }]),
      );
    });
  });
}

// A number JSON.parse cannot hold: 1e-400 became 0 (a price of 0 was stored), 1e400 Infinity, and
// a number with more significant digits than a double keeps became another one (an adjustment of
// 0.99999999999999999 applied 1, a price of 1.0000000000000000001 was stored as 1). A number is
// taken when its text is a way a double is written: the shortest text that reads back as it (what
// JavaScript, Python and Go print) or its 17 significant digits (C's %.17g, .NET's G17), so a price
// of 19.99 sent as 19.989999999999998 is still 19.99. Such a number needs an exponent of three
// digits, a run of 300 digits or 16 significant digits (any decimal of 15 or fewer reads back
// exactly), so other bodies are not parsed again.
const HUGE_TINY_OR_LONG = /\d[eE][-+]?\d{3}|\d{300}|\d(?:\.?\d){15}/;
const TOO_SMALL = Symbol('a number that is not 0 but parses to 0');
const TOO_LARGE = Symbol('a number that parses to infinity');
/** A number read as another: `read` is what JSON.parse made of it. */
class Rounded {
  readonly read: number;
  constructor(read: number) {
    this.read = read;
  }
}

/**
 * A JSON number's exact decimal value in one spelling: sign, digits without leading or trailing
 * zeros, exponent (`12.50` and `1.25e1` are both `125e-1`); `0` for any zero.
 */
function exactDecimal(text: string): string {
  const m = /^(-?)(\d*)(?:\.(\d*))?(?:[eE]([-+]?\d+))?$/.exec(text);
  if (!m) return text;
  const [, sign, whole, fraction = '', exponent = '0'] = m;
  const digits = (whole + fraction).replace(/^0+/, '');
  if (digits === '') return '0';
  const significant = digits.replace(/0+$/, '');
  return `${sign}${significant}e${Number(exponent) - fraction.length + digits.length - significant.length}`;
}

/** Field errors for the numbers of `text` (valid JSON) that parse to infinity, to 0 without being 0, or to another number. */
function unrepresentableNumbers(text: string): FieldError[] {
  if (!HUGE_TINY_OR_LONG.test(text)) return [];
  let marked: unknown;
  try {
    marked = JSON.parse(text, (_key, value: unknown, context?: { source?: string }) => {
      if (typeof value !== 'number') return value;
      if (!Number.isFinite(value)) return TOO_LARGE;
      const source = context?.source ?? '';
      if (value === 0) return /[1-9]/.test(source.split(/[eE]/)[0]) ? TOO_SMALL : value;
      const sent = exactDecimal(source);
      return sent === exactDecimal(String(value)) || sent === exactDecimal(value.toPrecision(17)) ? value : new Rounded(value);
    });
  } catch {
    // A reviver recurses: a body nested some 10,000 levels deep overflows the stack. No schema
    // takes such a body (free-form values nest at most 32 levels), so validation refuses it.
    return [];
  }
  const errors: FieldError[] = [];
  for (const { value, path } of nodes(marked)) {
    if (value === TOO_LARGE) errors.push({ path, message: 'must be a finite number', code: 'out_of_range' });
    else if (value === TOO_SMALL) errors.push({ path, message: 'is too small a number to hold (it would be read as 0)', code: 'out_of_range' });
    else if (value instanceof Rounded)
      errors.push({
        path,
        message: `has more significant digits than a number can hold exactly (it would be read as ${String(value.read)})`,
        code: 'out_of_range',
      });
  }
  return errors;
}

/** Where text that is valid JSON holds a key the parser refuses; null for text that is not JSON. */
function forbiddenKeyIn(text: string): string | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  return forbiddenKey(value);
}

/**
 * The pointer of the first `__proto__` key, or `constructor` holding `prototype`, in a parsed value
 * (JSON.parse makes them own keys), depth first in key order.
 */
function forbiddenKey(value: unknown): string | null {
  for (const { value: node, path } of nodes(value)) {
    if (node === null || typeof node !== 'object') continue;
    const entries = node as Record<string, unknown>;
    if (Object.hasOwn(entries, '__proto__')) return `${path}/__proto__`;
    const ctor = Object.hasOwn(entries, 'constructor') ? entries.constructor : undefined;
    if (ctor !== null && typeof ctor === 'object' && Object.hasOwn(ctor, 'prototype')) return `${path}/constructor`;
  }
  return null;
}

/**
 * Every value of a parsed JSON value with its JSON pointer, depth first in key order. With a stack
 * of its own: a body nested 500,000 levels deep fits in 1 MiB, and recursion overflowed the call
 * stack, which made a deep key a 400 "not valid JSON".
 */
function* nodes(root: unknown): Generator<{ value: unknown; path: string }> {
  const stack: { value: unknown; path: string }[] = [{ value: root, path: '' }];
  while (stack.length) {
    const node = stack.pop()!;
    yield node;
    const { value, path } = node;
    if (value === null || typeof value !== 'object') continue;
    const keys = Object.keys(value);
    for (let i = keys.length - 1; i >= 0; i--) stack.push({ value: (value as Record<string, unknown>)[keys[i]], path: `${path}/${escapePointer(keys[i])}` });
  }
}
