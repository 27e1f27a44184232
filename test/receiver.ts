// A real HTTP receiver on 127.0.0.1 for webhook tests: records every request with its raw body
// and answers from a script of responses.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { preloadContract, webhookViolations } from './contract.ts';
import { waitFor } from './wait.ts';
import type { webhooks } from '../packages/sdk/src/generated/openapi.ts';

/** Any webhook body the document's `webhooks` section describes (one per event type). */
export type WebhookBody = {
  [E in keyof webhooks]: webhooks[E]['post'] extends { requestBody: { content: { 'application/json': infer B } } } ? B : never;
}[keyof webhooks];

/** The id of the resource a webhook carries (undefined for a ping, which carries none). */
export function objectIdOf(body: WebhookBody): string | undefined {
  const object = body?.data?.object;
  return object && 'id' in object ? object.id : undefined;
}

/** The title of the resource a webhook carries, for resources that have one (products, collections, videos). */
export function titleOf(body: WebhookBody): string | undefined {
  const object = body?.data?.object;
  return object && 'title' in object ? object.title : undefined;
}

export interface Received {
  headers: http.IncomingHttpHeaders;
  raw: string;
  /** The parsed body, as the document describes it (a body that breaks it fails waitFor/close). */
  body: WebhookBody;
  at: number;
}

export interface Receiver {
  url: string;
  received: Received[];
  /** Next answers, in order; when empty, `fallback` answers. */
  /** `body` as several buffers is written in that many writes, a few milliseconds apart (so the client reads them as separate chunks). */
  script: { status: number; headers?: Record<string, string>; delayMs?: number; body?: string | Buffer[] }[];
  fallback: { status: number; delayMs?: number };
  /** Highest number of requests for one event id in flight at the same time. */
  maxConcurrentPerEvent(): number;
  /** Rejects when a received webhook broke the document's `webhooks` entry (also checked by waitFor and close). */
  assertKeptContract(): Promise<void>;
  waitFor(n: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startReceiver(path = '/hooks'): Promise<Receiver> {
  await preloadContract();
  const received: Received[] = [];
  const inFlight = new Map<string, number>();
  let maxConcurrent = 0;
  const violations: string[] = [];
  const checks: Promise<void>[] = [];
  const r: Receiver = {
    url: '',
    received,
    script: [],
    fallback: { status: 200 },
    maxConcurrentPerEvent: () => maxConcurrent,
    async assertKeptContract() {
      await Promise.all(checks.splice(0));
      const found = violations.splice(0);
      if (found.length) throw new Error(`A webhook breaks the OpenAPI document:\n${found.join('\n')}`);
    },
    async waitFor(n, timeoutMs = 15_000) {
      await waitFor(() => received.length >= n, {
        deadlineMs: timeoutMs,
        what: `${n} requests at the receiver`,
        describe: () => `${received.length} received`,
      });
      await r.assertKeptContract();
    },
    async close() {
      await new Promise<void>((res) => server.close(() => res()));
      await r.assertKeptContract();
    },
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    // respond() cannot reject: parsing is guarded and everything else is local.
    req.on('end', () => void respond());
    async function respond() {
      const raw = Buffer.concat(chunks).toString('utf8');
      const id = String(req.headers['x-service-webhook-id']);
      const now = (inFlight.get(id) ?? 0) + 1;
      inFlight.set(id, now);
      maxConcurrent = Math.max(maxConcurrent, now);
      let body: unknown = null;
      try {
        body = JSON.parse(raw);
      } catch {}
      // Typed as the document says; a body that is not (or not JSON) is a violation reported below.
      received.push({ headers: req.headers, raw, body: body as WebhookBody, at: Date.now() });
      checks.push(webhookViolations(req.headers, raw).then((found) => void violations.push(...found)));
      const answer: Receiver['script'][number] = r.script.shift() ?? r.fallback;
      if (answer.delayMs) await new Promise((res) => setTimeout(res, answer.delayMs));
      inFlight.set(id, (inFlight.get(id) ?? 1) - 1);
      res.writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers });
      const reply = answer.body ?? `answer ${answer.status}`;
      if (typeof reply === 'string') return void res.end(reply);
      for (const part of reply) {
        res.write(part);
        await new Promise((res) => setTimeout(res, 20));
      }
      res.end();
    }
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((res) => server.listen(0, '127.0.0.1', res));
  r.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`;
  return r;
}

export interface WebhookTap {
  /** Point the webhook endpoint here: every delivery is checked, then forwarded to the target. */
  url: string;
  /** Deliveries that passed through (checked), whether or not the target answered. */
  readonly seen: number;
  /** Rejects when a delivery broke the document's `webhooks` entry (also checked by close). */
  assertKeptContract(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A checking relay in front of a receiver the test does not own (e.g. the warehouse connector): each
 * delivery's headers and raw body are checked against the document's `webhooks` entry, then sent on
 * byte for byte to `target`, whose answer is relayed back. When the target is down the connection is
 * dropped, as the target's would be.
 */
export async function startWebhookTap(target: string): Promise<WebhookTap> {
  await preloadContract();
  const violations: string[] = [];
  const checks: Promise<void>[] = [];
  let seen = 0;
  const to = new URL(target);
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      seen++;
      checks.push(webhookViolations(req.headers, raw.toString('utf8')).then((found) => void violations.push(...found)));
      const headers = { ...req.headers, host: to.host, 'content-length': String(raw.length) };
      delete headers.connection;
      const forward = http.request({ hostname: to.hostname, port: to.port, path: to.pathname + to.search, method: req.method, headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      forward.on('error', () => req.socket.destroy());
      forward.end(raw);
    });
  });
  await new Promise<void>((res) => server.listen(0, '127.0.0.1', res));
  const tap: WebhookTap = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/tap`,
    get seen() {
      return seen;
    },
    async assertKeptContract() {
      await Promise.all(checks.splice(0));
      const found = violations.splice(0);
      if (found.length) throw new Error(`A webhook breaks the OpenAPI document:\n${found.join('\n')}`);
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((res) => server.close(() => res()));
      await tap.assertKeptContract();
    },
  };
  return tap;
}
