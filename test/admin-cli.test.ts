// The operator CLI as an operator runs it (a real process, `node src/cli/admin.ts`), on the same
// database the server uses: PostgreSQL through DATABASE_URL, or an embedded DATA_DIR.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/database.ts';
import { json, onPostgres, startTestApp, testDatabase, type TestApp, type TestDatabase } from './helpers.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mia-admin-'));
let pgDatabase: TestDatabase | null = null;
const dbEnv = () => (pgDatabase ? { DATABASE_URL: pgDatabase.url! } : { DATA_DIR: path.join(tmp, 'data') });

function admin(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['src/cli/admin.ts', ...args], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...dbEnv() },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stdout, stderr })));
}

async function adminJson(...args: string[]) {
  const r = await admin(...args, '--json');
  if (r.code !== 0) throw new Error(`admin ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

/** The server's view of the same database (on PGlite only while no CLI runs: one process per DATA_DIR). */
async function withApp<T>(fn: (t: TestApp) => Promise<T>): Promise<T> {
  if (pgDatabase) return fn(await startTestApp({}, pgDatabase).then((t) => (apps.push(t), t)));
  const handle = await openDatabase({ databaseUrl: null, dataDir: path.join(tmp, 'data') });
  const t = await startTestApp({}, { ...handle, url: null, queries: [] });
  try {
    return await fn(t);
  } finally {
    await t.close();
  }
}
const apps: TestApp[] = [];

beforeAll(async () => {
  if (onPostgres()) pgDatabase = await testDatabase();
});
afterAll(async () => {
  for (const t of apps) await t.app.close();
  await pgDatabase?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

const login = (t: TestApp, email: string, password: string) => t.app.inject({ method: 'POST', url: '/portal/api/login', payload: { email, password } });

describe('operator CLI', () => {
  let merchant: { id: string; name: string; currency: string };

  it(
    'onboards a merchant, location, portal user and key that the server then accepts; resets a lost password',
    async () => {
      merchant = await adminJson('create-merchant', '--name', 'CLI Outfitters', '--currency', 'eur');
      expect(merchant).toEqual({ id: expect.any(String), name: 'CLI Outfitters', currency: 'EUR' });
      const location = await adminJson('create-location', '--merchant', merchant.id, '--name', 'Main');
      const user = await adminJson('create-user', '--merchant', merchant.id, '--email', 'Ops@CLI.test');
      expect(user).toEqual({ id: expect.any(String), email: 'ops@cli.test', password: expect.stringMatching(/^[\w-]{16}$/) });
      const key = await adminJson('create-key', '--merchant', merchant.id, '--label', 'Warehouse', '--warehouse', '--locations', location.id);
      expect(key).toMatchObject({ label: 'Warehouse', location_ids: [location.id], revoked_at: null, secret: expect.stringMatching(/^mia_sk_[\w-]{43}$/) });
      expect(await adminJson('list-merchants')).toEqual([
        {
          id: merchant.id,
          name: 'CLI Outfitters',
          currency: 'EUR',
          created_at: expect.any(String),
          locations: [{ id: location.id, name: 'Main' }],
          portal_users: ['ops@cli.test'],
        },
      ]);
      const text = await admin('create-key', '--merchant', merchant.id, '--label', 'Reader', '--scopes', 'orders.read');
      expect(text.stdout).toMatch(
        /^API key [0-9a-f-]{36} {2}"Reader" {2}scopes orders\.read\nSecret \(shown once; only its hash is stored\): mia_sk_[\w-]{43}\n$/,
      );

      const cookie = await withApp(async (t) => {
        expect(json(await t.api(key.secret, 'GET', '/locations'), 200, 'listLocations').data.map((l: { name: string }) => l.name)).toEqual(['Main']);
        const res = await login(t, 'ops@cli.test', user.password);
        expect(res.statusCode).toBe(200);
        return String(res.headers['set-cookie']).split(';')[0];
      });

      const reset = await adminJson('reset-password', '--email', 'ops@cli.test');
      expect(reset).toEqual({
        id: user.id,
        email: 'ops@cli.test',
        merchant_id: merchant.id,
        sessions_ended: 1,
        password: expect.stringMatching(/^[\w-]{16}$/),
      });
      await withApp(async (t) => {
        expect((await t.app.inject({ method: 'GET', url: '/portal/api/api-keys', headers: { cookie } })).statusCode).toBe(401); // the session ended
        expect((await login(t, 'ops@cli.test', user.password)).statusCode).toBe(401);
        expect((await login(t, 'ops@cli.test', reset.password)).statusCode).toBe(200);
      });
    },
    240_000 /* eight CLI processes, each opening the embedded database */,
  );

  it('says what is wrong in plain words, never with a stack trace', async () => {
    expect(await admin('create-user', '--merchant', merchant.id, '--email', 'not-an-email', '--password', 'short')).toEqual({
      code: 1,
      stdout: '',
      stderr: '--email: must be an email address\n--password: must NOT have fewer than 8 characters\n',
    });
    expect(await admin('reset-password', '--email', 'nobody@cli.test')).toEqual({ code: 1, stdout: '', stderr: '--email: is not a portal user\n' });
    expect(await admin('create-location', '--merchant', '00000000-0000-4000-8000-000000000000', '--name', 'X')).toEqual({
      code: 1,
      stdout: '',
      stderr: 'No such merchant.\n',
    });
    const unknown = await admin('create-key', '--merchant', merchant.id, '--label', 'x', '--scopes', 'orders.read,orders.delete');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr.split('\n')[0]).toBe(
      'Unknown scope "orders.delete"; the scopes are: ' +
        'products.read, products.write, products.submit, collections.read, collections.write, collections.submit, orders.read, fulfillments.read, fulfillments.create, fulfillments.tracking.write, fulfillments.write, inventory.read, inventory.adjust, inventory.write, social_videos.read, social_videos.write.',
    );
    const bad = await admin('frobnicate');
    expect([bad.code, bad.stderr.split('\n')[0]]).toEqual([2, 'Unknown command "frobnicate".']);
  }, 60_000);
});
