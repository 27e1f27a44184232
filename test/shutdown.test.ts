// Graceful shutdown of a real process (src/main.ts): SIGTERM while requests are in flight on
// keep-alive connections. Raw sockets, so the test controls when each byte arrives.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { onPostgres, OPERATOR_TOKEN, testDatabase, type TestDatabase } from './helpers.ts';
import { waitFor } from './wait.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mia-shutdown-'));
const databases: TestDatabase[] = [];
afterAll(async () => {
  for (const d of databases) await d.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

interface Service {
  child: ChildProcess;
  port: number;
  output: () => string;
  exited: Promise<number | null>;
}

/** src/main.ts with both roles, on the suite's PostgreSQL (TEST_DB=postgres) or a new embedded database. */
async function startService(): Promise<Service> {
  const database = await testDatabase();
  databases.push(database);
  const child = spawn(process.execPath, ['src/main.ts'], {
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      ...(database.url ? { DATABASE_URL: database.url } : { DATA_DIR: fs.mkdtempSync(path.join(tmp, 'data-')) }),
      HOST: '127.0.0.1',
      PORT: '0',
      PLATFORM_ADMIN_TOKEN: OPERATOR_TOKEN,
      SEED_DEMO: 'false',
      LOG_FORMAT: 'json',
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const port = await waitFor(() => /listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(out)?.[1], {
    deadlineMs: 60_000,
    what: 'the service to listen',
    describe: () => out,
  });
  return { child, port: Number(port), output: () => out, exited };
}

/** A raw keep-alive connection: what the server sent so far, and whether it closed. */
async function connect(port: number) {
  const socket = net.connect(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  let received = '';
  let closed = false;
  socket.on('data', (c: Buffer) => (received += c.toString('latin1')));
  socket.on('error', () => {});
  socket.on('close', () => (closed = true));
  return {
    send: (text: string) => socket.write(text),
    received: () => received,
    closed: () => closed,
    destroy: () => socket.destroy(),
  };
}

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Every complete final answer in `text` (Content-Length bodies, as this service sends; `100 Continue` skipped). */
function answers(text: string): Answer[] {
  const out: Answer[] = [];
  let rest = text;
  for (;;) {
    const end = rest.indexOf('\r\n\r\n');
    if (end === -1) return out;
    const [statusLine, ...lines] = rest.slice(0, end).split('\r\n');
    const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
    const length = Number(headers['content-length'] ?? 0);
    if (rest.length < end + 4 + length) return out;
    const status = Number(statusLine.split(' ')[1]);
    if (status !== 100) out.push({ status, headers, body: rest.slice(end + 4, end + 4 + length) });
    rest = rest.slice(end + 4 + length);
  }
}

const HEALTH = 'GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n';

describe('shutdown with requests in flight on keep-alive connections', () => {
  it('answers the in-flight request with Connection: close, refuses later ones with a 503 problem, closes idle connections, and exits 0 soon after', async () => {
    const service = await startService();
    try {
      // An idle keep-alive connection: it has had its answer and waits for the next request.
      const idle = await connect(service.port);
      idle.send(HEALTH);
      await waitFor(() => answers(idle.received()).length === 1, { deadlineMs: 5_000, what: 'the idle connection’s first answer' });
      expect(answers(idle.received())[0].headers['connection']).toBe('keep-alive');

      // A connection that had an answer and is sending its next request's headers: busy, so not
      // closed when closing begins; that request reaches the app after it began.
      const next = await connect(service.port);
      next.send(HEALTH);
      await waitFor(() => answers(next.received()).length === 1, { deadlineMs: 5_000, what: 'the first answer on the next connection' });
      next.send('GET /api/integrations/v1/orders HTTP/1.1\r\nHost: localhost\r\n');

      // A request in flight: its body arrives in two halves, SIGTERM between them. Node answers
      // `100 Continue` as it hands the request to the app, so the SIGTERM surely comes after that.
      const body = JSON.stringify({ name: 'Merchant created while shutting down' });
      const busy = await connect(service.port);
      busy.send(
        `POST /api/platform/v1/merchants HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${OPERATOR_TOKEN}\r\nExpect: 100-continue\r\n` +
          `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, 10)}`,
      );
      await waitFor(() => busy.received().startsWith('HTTP/1.1 100 Continue\r\n\r\n'), { deadlineMs: 5_000, what: 'the request to reach the app' });
      service.child.kill('SIGTERM');
      // Closing has begun once the idle connection is closed by the server.
      await waitFor(() => idle.closed(), { deadlineMs: 5_000, what: 'the idle connection to be closed', describe: () => service.output() });
      const sentAt = Date.now();
      next.send('\r\n');
      busy.send(body.slice(10));

      // Refused as a problem like every other answer, and the connection closed after it.
      await waitFor(() => next.closed(), { deadlineMs: 5_000, what: 'the refused request’s connection to close', describe: next.received });
      const [, refused, ...after] = answers(next.received());
      expect(after).toEqual([]);
      expect(refused.status).toBe(503);
      expect(refused.headers).toMatchObject({ 'content-type': 'application/problem+json; charset=utf-8', 'retry-after': '1', connection: 'close' });
      expect(JSON.parse(refused.body)).toEqual({
        type: '/errors#service_unavailable',
        title: 'Service unavailable',
        status: 503,
        detail: 'This instance is shutting down; nothing was applied. Retry (another instance answers).',
        code: 'service_unavailable',
        request_id: refused.headers['x-request-id'],
      });
      expect(refused.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);

      await waitFor(() => busy.closed(), { deadlineMs: 5_000, what: 'the in-flight request’s connection to close after its answer', describe: busy.received });
      const [created, ...more] = answers(busy.received());
      expect(more).toEqual([]);
      expect(created.status, created.body).toBe(201);
      expect(created.headers['connection']).toBe('close');
      expect(JSON.parse(created.body)).toMatchObject({ data: { name: 'Merchant created while shutting down' } });

      const code = await Promise.race([service.exited, new Promise((r) => setTimeout(() => r('still running'), 5_000))]);
      expect(code, service.output()).toBe(0);
      expect(Date.now() - sentAt).toBeLessThan(5_000);
    } finally {
      if (service.child.exitCode === null) service.child.kill('SIGKILL');
    }
  }, 90_000);
});

// PostgreSQL only: the test holds a row lock from its own session to keep both requests in flight.
describe.runIf(onPostgres())('shutdown with pipelined requests in flight', () => {
  it('every pipelined request the app took is answered: only the last answer closes the connection (later ones were applied, never answered)', async () => {
    const service = await startService();
    const lock = new pg.Client({ connectionString: databases.at(-1)!.url! });
    try {
      const base = `http://127.0.0.1:${service.port}`;
      const op = async (path: string, body: unknown) => {
        const res = await fetch(`${base}/api/platform/v1${path}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${OPERATOR_TOKEN}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        expect(res.status, path).toBe(201);
        return ((await res.json()) as { data: Record<string, string> }).data;
      };
      const merchant = await op('/merchants', { name: 'Pipelined' });
      const location = await op(`/merchants/${merchant.id}/locations`, { name: 'Dock' });
      const key = await op(`/merchants/${merchant.id}/api-keys`, { label: 'Pipe', scopes: ['inventory.adjust', 'products.write'] });
      const created = await fetch(`${base}/api/integrations/v1/products`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key.secret}`, 'content-type': 'application/json' },
        body: JSON.stringify({ title: 'Piped', variants: [{ sku: 'PIPE-1', price: 1 }] }),
      });
      const variant = ((await created.json()) as { data: { variants: { id: string }[] } }).data.variants[0].id;
      const adjustment = (n: number) => {
        const body = JSON.stringify({ adjustments: [{ variant_id: variant, fulfillment_location_id: location.id, adjustment: 1 }] });
        return (
          `POST /api/integrations/v1/inventory/adjustments HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${key.secret}\r\n` +
          `Idempotency-Key: pipe-${n}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
        );
      };
      const first = await connect(service.port);
      first.send(adjustment(0));
      await waitFor(() => answers(first.received()).length === 1, { deadlineMs: 10_000, what: 'the first adjustment' });
      expect(answers(first.received())[0].status).toBe(200);

      // Both pipelined adjustments wait on the stock row this session holds.
      await lock.connect();
      await lock.query('begin');
      await lock.query('select on_hand from inventory_levels where variant_id = $1 for update', [variant]);
      const piped = await connect(service.port);
      piped.send(adjustment(1) + adjustment(2));
      let sessions: unknown[] = [];
      await waitFor(
        async () => {
          // Read afresh: within this session's transaction pg_stat_activity kept its first reading
          // (the test timed out when that reading came before both adjustments arrived).
          await lock.query('select pg_stat_clear_snapshot()');
          sessions = (
            await lock.query(`select state, wait_event_type, wait_event, left(query, 60) as q from pg_stat_activity where datname = current_database()`)
          ).rows;
          return sessions.filter((r) => (r as { wait_event_type: string }).wait_event_type === 'Lock').length === 2;
        },
        { deadlineMs: 10_000, what: 'both pipelined adjustments to wait on the lock', describe: () => `${piped.received()} ${JSON.stringify(sessions)}` },
      );
      service.child.kill('SIGTERM');
      // Closing has begun once the idle connection is closed by the server.
      await waitFor(() => first.closed(), { deadlineMs: 5_000, what: 'the idle connection to be closed', describe: () => service.output() });
      await lock.query('rollback');

      await waitFor(() => piped.closed(), { deadlineMs: 10_000, what: 'the pipelined connection to close', describe: piped.received });
      const got = answers(piped.received());
      expect(got.map((a) => [a.status, a.headers['connection']])).toEqual([
        [200, 'keep-alive'],
        [200, 'close'],
      ]);
      const applied = await lock.query('select on_hand from inventory_levels where variant_id = $1', [variant]);
      expect(applied.rows[0].on_hand).toBe(3);
      const code = await Promise.race([service.exited, new Promise((r) => setTimeout(() => r('still running'), 10_000))]);
      expect(code, service.output()).toBe(0);
    } finally {
      await lock.end().catch(() => {});
      if (service.child.exitCode === null) service.child.kill('SIGKILL');
    }
  }, 90_000);

  it('a later pipelined request that finished first is answered too: the earlier answer does not close the connection under it', async () => {
    const service = await startService();
    const lock = new pg.Client({ connectionString: databases.at(-1)!.url! });
    try {
      const base = `http://127.0.0.1:${service.port}`;
      const op = async (path: string, body: unknown) => {
        const res = await fetch(`${base}/api/platform/v1${path}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${OPERATOR_TOKEN}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        expect(res.status, path).toBe(201);
        return ((await res.json()) as { data: Record<string, string> }).data;
      };
      const merchant = await op('/merchants', { name: 'Pipelined' });
      const location = await op(`/merchants/${merchant.id}/locations`, { name: 'Dock' });
      const key = await op(`/merchants/${merchant.id}/api-keys`, { label: 'Pipe', scopes: ['inventory.adjust', 'products.write'] });
      const created = await fetch(`${base}/api/integrations/v1/products`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key.secret}`, 'content-type': 'application/json' },
        body: JSON.stringify({ title: 'Piped', variants: [{ sku: 'PIPE-1', price: 1 }] }),
      });
      const variant = ((await created.json()) as { data: { variants: { id: string }[] } }).data.variants[0].id;
      const other = await fetch(`${base}/api/integrations/v1/products`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key.secret}`, 'content-type': 'application/json' },
        body: JSON.stringify({ title: 'Free', variants: [{ sku: 'FREE-1', price: 1 }] }),
      });
      const free = ((await other.json()) as { data: { variants: { id: string }[] } }).data.variants[0].id;
      const adjustment = (n: number, of = variant) => {
        const body = JSON.stringify({ adjustments: [{ variant_id: of, fulfillment_location_id: location.id, adjustment: 1 }] });
        return (
          `POST /api/integrations/v1/inventory/adjustments HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${key.secret}\r\n` +
          `Idempotency-Key: pipe-${n}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
        );
      };
      const first = await connect(service.port);
      first.send(adjustment(0));
      await waitFor(() => answers(first.received()).length === 1, { deadlineMs: 10_000, what: 'the first adjustment' });
      expect(answers(first.received())[0].status).toBe(200);

      // The first pipelined adjustment waits on the stock row this session holds; the second, of
      // another variant, is applied meanwhile, its answer queued behind the first one's.
      await lock.connect();
      await lock.query('begin');
      await lock.query('select on_hand from inventory_levels where variant_id = $1 for update', [variant]);
      const piped = await connect(service.port);
      piped.send(adjustment(1) + adjustment(2, free));
      let sessions: unknown[] = [];
      await waitFor(
        async () => {
          // Read afresh: within this session's transaction pg_stat_activity kept its first reading
          // (the test timed out when that reading came before both adjustments arrived).
          await lock.query('select pg_stat_clear_snapshot()');
          sessions = (
            await lock.query(`select state, wait_event_type, wait_event, left(query, 60) as q from pg_stat_activity where datname = current_database()`)
          ).rows;
          const freeStock = await lock.query('select on_hand from inventory_levels where variant_id = $1', [free]);
          return sessions.filter((r) => (r as { wait_event_type: string }).wait_event_type === 'Lock').length === 1 && freeStock.rows[0]?.on_hand === 1;
        },
        {
          deadlineMs: 10_000,
          what: 'the first adjustment to wait on the lock and the second to be applied',
          describe: () => `${piped.received()} ${JSON.stringify(sessions)}`,
        },
      );
      service.child.kill('SIGTERM');
      // Closing has begun once the idle connection is closed by the server.
      await waitFor(() => first.closed(), { deadlineMs: 5_000, what: 'the idle connection to be closed', describe: () => service.output() });
      await lock.query('rollback');

      await waitFor(() => piped.closed(), { deadlineMs: 10_000, what: 'the pipelined connection to close', describe: piped.received });
      // The second answer went out before closing began, so it says keep-alive; the server closes
      // the connection once both are sent. Before, the first answer said close and the second,
      // applied, was never sent.
      const got = answers(piped.received());
      expect(got.map((a) => a.status)).toEqual([200, 200]);
      const applied = await lock.query('select variant_id, on_hand from inventory_levels where variant_id = any($1) order by on_hand', [[variant, free]]);
      expect(applied.rows.map((r) => r.on_hand)).toEqual([1, 2]);
      const code = await Promise.race([service.exited, new Promise((r) => setTimeout(() => r('still running'), 10_000))]);
      expect(code, service.output()).toBe(0);
    } finally {
      await lock.end().catch(() => {});
      if (service.child.exitCode === null) service.child.kill('SIGKILL');
    }
  }, 90_000);
});
