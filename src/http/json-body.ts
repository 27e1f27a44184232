// How a JSON body is read: as UTF-8 bytes, or not at all. Fastify's own parser decodes the body
// with replacement characters, so invalid UTF-8 (or Latin-1 sent as `charset=iso-8859-1`) was
// stored as U+FFFD without a word, and it ignored Content-Encoding, so a gzip body was "not valid
// JSON" and a `br` one was applied as if plain. Now, for a route that takes a body:
// - a Content-Encoding other than identity is 415 (we decode none);
// - a charset other than UTF-8 is 415 (RFC 8259 §8.1: JSON between systems is UTF-8);
// - bytes that are not well-formed UTF-8 are 400 malformed_request.
// The JSON itself is still parsed by Fastify's parser (prototype poisoning refused, as before).
import { isUtf8 } from 'node:buffer';
import type { FastifyInstance } from 'fastify';
import { AppError } from './errors.ts';

const CHARSET = /;\s*charset\s*=\s*"?([^";\s]*)"?/i;

export function registerJsonBody(app: FastifyInstance) {
  app.addHook('preParsing', (req, _reply, payload, done) => {
    if (!req.routeOptions.schema?.body || req.method === 'GET' || req.method === 'DELETE') return done(null, payload);
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
    if (!isUtf8(bytes)) return done(new AppError('malformed_request', 'The body is not valid UTF-8.'), undefined);
    parse(req, bytes.toString('utf8'), done);
  });
}
