// An API process and a worker process (ROLE=worker) on one PostgreSQL, the worker's poll set far
// beyond every deadline here (60 s): deliveries arrive because each commit notifies the worker's
// LISTEN connection, and when that connection is terminated the worker reconnects and delivers what
// was committed meanwhile. PostgreSQL only (PGlite is one process: test/webhooks-wake.test.ts).
import type { ChildProcess } from 'node:child_process';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WAKE_APPLICATION_NAME } from '../src/events/wake.ts';
import { onPostgres, OPERATOR_TOKEN, testDatabase, type TestDatabase } from './helpers.ts';
import { objectIdOf, startReceiver, type Receiver } from './receiver.ts';
import { spawnService, stopServices } from './service-process.ts';

const DEADLINE_MS = 15_000; // far below the worker's 60 s poll
const children: ChildProcess[] = [];

function start(role: 'api' | 'worker', databaseUrl: string): Promise<{ child: ChildProcess; out: () => string; base: string | null }> {
  const child = spawnService(role, databaseUrl, { WORKER_POLL_MS: '60000', RATE_LIMIT_PER_MINUTE: '100000' });
  children.push(child);
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  const ready = role === 'api' ? /listening at (http:\/\/127\.0\.0\.1:\d+)/ : /"msg":"ready"/;
  return new Promise((resolve, reject) => {
    const deadline = Date.now() + 60_000;
    const check = setInterval(() => {
      const match = ready.exec(out);
      if (match) {
        clearInterval(check);
        resolve({ child, out: () => out, base: match[1] ?? null });
      } else if (child.exitCode !== null || Date.now() > deadline) {
        clearInterval(check);
        reject(new Error(`${role} process did not start: ${out}`));
      }
    }, 20);
  });
}

describe.runIf(onPostgres())('a worker process woken by commits of an API process', () => {
  let database: TestDatabase;
  let api: string;
  let worker: Awaited<ReturnType<typeof start>>;
  let receiver: Receiver;
  let key: string;

  const call = async (path: string, body: unknown, token: string) => {
    const res = await fetch(`${api}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const json = await res.json();
    if (res.status !== 201) throw new Error(`POST ${path}: ${res.status} ${JSON.stringify(json)}`);
    return json.data;
  };
  const createProduct = async (title: string) => (await call('/api/integrations/v1/products', { title }, key)).id as string;
  const delivered = () => receiver.received.map((r) => objectIdOf(r.body));

  /** The worker's LISTEN backend, once it is listening (waits up to the deadline). */
  async function listener(notPid?: number): Promise<number> {
    const deadline = Date.now() + DEADLINE_MS;
    for (;;) {
      const { rows } = await sql<{ pid: number }>`
        select pid from pg_stat_activity
         where datname = current_database() and application_name = ${WAKE_APPLICATION_NAME} and query ilike 'listen %'`.execute(database.db);
      const pid = rows.find((r) => r.pid !== notPid)?.pid;
      if (pid !== undefined) return pid;
      if (Date.now() > deadline) throw new Error(`the worker is not listening: ${worker.out()}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  beforeAll(async () => {
    database = await testDatabase();
    const [a, w] = await Promise.all([start('api', database.url!), start('worker', database.url!)]);
    api = a.base!;
    worker = w;
    receiver = await startReceiver();
    const merchant = await call('/api/platform/v1/merchants', { name: 'Wake' }, OPERATOR_TOKEN);
    key = (await call(`/api/platform/v1/merchants/${merchant.id}/api-keys`, { label: 'wake', scopes: ['products.write'] }, OPERATOR_TOKEN)).secret;
    await call(`/api/platform/v1/merchants/${merchant.id}/webhook-endpoints`, { url: receiver.url, events: ['product.created'] }, OPERATOR_TOKEN);
  }, 120_000);

  afterAll(async () => {
    await stopServices(children);
    await receiver?.close();
    await database?.close();
  });

  it('each event committed by the API process is delivered by the worker process long before its poll', async () => {
    await listener();
    const ids: string[] = [];
    for (let i = 1; i <= 3; i++) {
      ids.push(await createProduct(`Woken ${i}`));
      await receiver.waitFor(i, DEADLINE_MS);
    }
    expect(delivered()).toEqual(ids);
  });

  it('after its LISTEN connection is terminated the worker reconnects, delivers what was committed meanwhile, and is woken again', async () => {
    const before = delivered().length;
    const pid = await listener();
    const { rows } = await sql<{ ok: boolean }>`select pg_terminate_backend(${pid}) as ok`.execute(database.db);
    expect(rows[0].ok).toBe(true);
    // Committed right after the termination, while the worker has no LISTEN connection (it waits before reconnecting).
    const meanwhile = [await createProduct('Meanwhile 1'), await createProduct('Meanwhile 2')];
    await receiver.waitFor(before + 2, DEADLINE_MS);
    expect(delivered().slice(before).sort()).toEqual([...meanwhile].sort());
    // A new connection listens, and a commit now wakes it as before.
    const again = await listener(pid);
    expect(again).not.toBe(pid);
    const after = await createProduct('After the reconnect');
    await receiver.waitFor(before + 3, DEADLINE_MS);
    expect(delivered().slice(before + 2)).toEqual([after]);
    expect(worker.out()).toContain('webhook wake connection lost; reconnecting');
  });
});
