// The HTTP side of a delivery: no redirects, a hard timeout, and SSRF protection checked on the
// address the socket actually connected to (so DNS rebinding cannot slip a private address in).
import dns from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { Agent, buildConnector, request } from 'undici';
import { makeStorable } from '../http/validation.ts';
import { isPublicAddress } from './address-policy.ts';

export interface PostResult {
  statusCode: number | null;
  durationMs: number;
  excerpt: string | null;
  error: string | null;
}

/** Characters of a receiver's answer kept with the attempt. */
export const EXCERPT_LENGTH = 1024;
const EXCERPT_BYTES = EXCERPT_LENGTH * 4;

/**
 * The start of a receiver's answer as the attempt log keeps it: decoded once (a character split
 * between two chunks is not garbled), cut at EXCERPT_LENGTH UTF-16 units without halving a pair,
 * NUL and ill-formed sequences replaced. The attempt is written through jsonb, which refuses
 * \u0000 and lone surrogates: an answer holding either once kept its delivery from being settled,
 * so it was posted again after every lease, without end.
 */
export function responseExcerpt(body: Buffer): string {
  let text = body.toString('utf8');
  if (text.length > EXCERPT_LENGTH) {
    const cut = text.charCodeAt(EXCERPT_LENGTH - 1);
    text = text.slice(0, cut >= 0xd800 && cut <= 0xdbff ? EXCERPT_LENGTH - 1 : EXCERPT_LENGTH);
  }
  return makeStorable(text);
}

export function createTransport(options: { timeoutMs: number; allowPrivate: boolean; connections?: number }) {
  // The address a name resolves to is checked before connecting (so no TLS handshake ever reaches a
  // private host), and the socket's peer address is checked again after. The error the attempt log
  // shows the merchant names the host, never the private address it resolved to: that would map the
  // service's internal network (a name's internal address is not the merchant's to learn).
  const lookup: LookupFunction = (hostname, lookupOptions, callback) => {
    dns.lookup(hostname, { ...lookupOptions, all: true }, (err, list) => {
      if (err) return callback(err, []);
      const denied = options.allowPrivate ? undefined : list.find((a) => !isPublicAddress(a.address));
      if (denied) return callback(new Error(`refused: ${hostname} resolves to a private address`), []);
      if (lookupOptions.all) return callback(null, list);
      callback(null, list[0].address, list[0].family);
    });
  };
  const base = buildConnector({ timeout: options.timeoutMs, lookup });
  const connect: buildConnector.connector = (opts, callback) => {
    const literal = opts.hostname.replace(/^\[|\]$/g, '');
    if (!options.allowPrivate && isIP(literal) && !isPublicAddress(literal)) {
      return callback(new Error(`refused: private address ${opts.hostname}`), null);
    }
    base(opts, (err, socket) => {
      if (err) return callback(err, null);
      const address = socket.remoteAddress ?? '';
      if (!options.allowPrivate && !isPublicAddress(address)) {
        socket.destroy();
        return callback(new Error(`refused: ${opts.hostname} connected to a private address`), null);
      }
      callback(null, socket);
    });
  };
  const agent = new Agent({ connect, keepAliveTimeout: 10_000, connections: options.connections ?? 50 });

  async function post(url: string, headers: Record<string, string>, body: string): Promise<PostResult> {
    const started = performance.now();
    const done = (statusCode: number | null, excerpt: string | null, error: string | null): PostResult => ({
      statusCode,
      durationMs: Math.round(performance.now() - started),
      excerpt,
      error,
    });
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return done(null, null, 'invalid URL');
    }
    if (!options.allowPrivate && parsed.protocol !== 'https:') return done(null, null, 'refused: endpoint URL is not https');
    try {
      const res = await request(url, {
        method: 'POST',
        headers,
        body,
        dispatcher: agent,
        headersTimeout: options.timeoutMs,
        bodyTimeout: options.timeoutMs,
        signal: AbortSignal.timeout(options.timeoutMs),
      });
      const chunks: Buffer[] = [];
      let bytes = 0;
      try {
        for await (const chunk of res.body as AsyncIterable<Buffer>) {
          chunks.push(chunk);
          bytes += chunk.length;
          if (bytes >= EXCERPT_BYTES) break;
        }
      } catch {}
      return done(res.statusCode, responseExcerpt(Buffer.concat(chunks, Math.min(bytes, EXCERPT_BYTES))), null);
    } catch (err) {
      const e = err as Error & { code?: string };
      const message = e.name === 'TimeoutError' || e.code === 'UND_ERR_HEADERS_TIMEOUT' ? `timeout after ${options.timeoutMs} ms` : e.message;
      return done(null, null, makeStorable(message.slice(0, 500)));
    }
  }

  return { post, close: () => agent.close() };
}
