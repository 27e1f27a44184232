// Start-up as a newcomer meets it: real processes of src/main.ts, their output read as a person
// would. A setting that cannot work is one plain sentence naming it; every start prints the URLs.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { ADMIN_URL, onPostgres } from './helpers.ts';
import { spawnService, stopServices } from './service-process.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mia-startup-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs src/main.ts until it exits, or until `until` matches its stdout (then stops it with SIGTERM). */
function run(env: Record<string, string>, until?: RegExp, deadlineMs = 100_000): Promise<Run> {
  const child = spawn(process.execPath, ['src/main.ts'], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, SEED_DEMO: 'false', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const timer = setTimeout(() => child.kill('SIGKILL'), deadlineMs);
  child.stdout.on('data', (c: Buffer) => {
    stdout += c.toString();
    if (until?.test(stdout)) child.kill('SIGTERM');
  });
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  return new Promise((resolve) =>
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    }),
  );
}

/** The one sentence a failed start prints: exit 1, nothing on stdout, no stack trace. */
function expectOneSentence(r: Run, sentence: string) {
  expect(r.code).toBe(1);
  expect(r.stdout).toBe('');
  expect(r.stderr).toBe(`${sentence}\n`);
}

async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}

// Database-independent, so it runs in the PGlite pass only; the failures run side by side (each a
// process start: generous deadlines for a loaded 2-core machine).
describe.skipIf(onPostgres()).concurrent('start-up failures: one sentence naming the setting and what to do', () => {
  it('DATABASE_URL that is not a URL', async () => {
    expectOneSentence(
      await run({ DATABASE_URL: 'not a url' }),
      'DATABASE_URL is not a valid postgres URL: write it like postgres://user:password@host:5432/dbname, or unset it to use the embedded database under DATA_DIR.',
    );
  }, 120_000);

  it('REDIS_URL that does not answer: nothing listening, or a host that cannot be found (it started with no rate limit at all)', async () => {
    const port = await freePort();
    const dataDir = path.join(tmp, 'redis');
    expectOneSentence(
      await run({ REDIS_URL: `redis://127.0.0.1:${port}`, DATA_DIR: dataDir }),
      `REDIS_URL points at 127.0.0.1:${port}, but nothing accepts connections there: start Redis, fix REDIS_URL, or unset it to keep rate-limit counts in this process.`,
    );
    expectOneSentence(
      await run({ REDIS_URL: 'redis://nonexistent.invalid:6379', DATA_DIR: dataDir }),
      'REDIS_URL names the host "nonexistent.invalid", which cannot be found: start Redis, fix REDIS_URL, or unset it to keep rate-limit counts in this process.',
    );
    // Something accepts the connection and never answers (a Redis stopped with SIGSTOP): it waited
    // for ever, saying nothing.
    const silent = net.createServer(() => {});
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const silentPort = (silent.address() as net.AddressInfo).port;
    try {
      const started = Date.now();
      expectOneSentence(
        await run({ REDIS_URL: `redis://127.0.0.1:${silentPort}/3`, DATA_DIR: dataDir }, undefined, 60_000),
        `Redis at 127.0.0.1:${silentPort} named by REDIS_URL did not answer (no answer within 5000 ms): start Redis, fix REDIS_URL, or unset it to keep rate-limit counts in this process.`,
      );
      expect(Date.now() - started).toBeLessThan(30_000);
    } finally {
      silent.close();
    }
  }, 120_000);

  it('DATABASE_URL pointing where no server listens (the password is not echoed)', async () => {
    const port = await freePort();
    expectOneSentence(
      await run({ DATABASE_URL: `postgres://app:hunter22@127.0.0.1:${port}/shop` }),
      `DATABASE_URL points at 127.0.0.1:${port}/shop, but nothing accepts connections there: start the server or fix DATABASE_URL (unset it to use the embedded database).`,
    );
  }, 120_000);

  it('PORT already taken by another process, found before the database is touched', async () => {
    const blocker = net.createServer();
    await new Promise<void>((r) => blocker.listen(0, '0.0.0.0', r));
    const port = (blocker.address() as net.AddressInfo).port;
    const dataDir = path.join(tmp, 'port-taken');
    try {
      expectOneSentence(
        await run({ PORT: String(port), DATA_DIR: dataDir }),
        `PORT ${port} is already in use (another process listens on it, perhaps a server started earlier): stop that process or set PORT to a free port.`,
      );
      expect(fs.existsSync(dataDir)).toBe(false);
    } finally {
      blocker.close();
    }
  }, 120_000);

  it('PORT that is not a number', async () => {
    expectOneSentence(await run({ PORT: 'eighty' }), 'PORT must be a port number from 0 to 65535 (for example 3000), but it is "eighty": fix or unset it.');
  }, 120_000);

  it('DATA_DIR that is a file, not a directory', async () => {
    const file = path.join(tmp, 'a-file');
    fs.writeFileSync(file, 'x');
    expectOneSentence(
      await run({ PORT: '0', DATA_DIR: file }),
      `DATA_DIR ${file} is not a directory (a file is in the way): set DATA_DIR to a directory this user can write (or unset it for ./data), or set DATABASE_URL to use a PostgreSQL server.`,
    );
  }, 120_000);

  it('a bad number or word in another setting', async () => {
    expectOneSentence(
      await run({ WEBHOOK_TIMEOUT_MS: '10s' }),
      'WEBHOOK_TIMEOUT_MS must be a whole number from 100 to 600000, but it is "10s": fix or unset it.',
    );
    expectOneSentence(await run({ LOG_FORMAT: 'xml' }), 'LOG_FORMAT must be one of pretty, json, but it is "xml": fix or unset it.');
  }, 120_000);
});

describe.skipIf(onPostgres())('every start prints where things are', () => {
  it('first start (terminal format) shows the demo credentials once and the URLs; a restart (JSON format) gives the URLs again and no secret', async () => {
    const dataDir = path.join(tmp, 'restart');
    const env = { PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, SEED_DEMO: 'true' };
    const first = await run({ ...env, LOG_FORMAT: 'pretty' }, /Lost a key or the portal password\?.*\n.*└/);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/Demo merchant created \(shown once; only hashes are stored\)\n {2}│ API key, all scopes: +mia_sk_\S{43}\n/);
    const box = first.stdout.slice(first.stdout.indexOf('┌ Merchant Integration API is running'));
    expect(box).toMatch(
      new RegExp(
        [
          `┌ Merchant Integration API is running \\(api \\+ worker; database: embedded, DATA_DIR ${dataDir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\)`,
          '│ Portal: +http://localhost:\\d+/portal',
          '│ API: +http://localhost:\\d+/api/integrations/v1',
          '│ Docs: +http://localhost:\\d+/docs',
          '│ Operator API: +http://localhost:\\d+/api/platform/v1 \\(disabled: set PLATFORM_ADMIN_TOKEN\\)',
          '│ Metrics: +off \\(set METRICS_TOKEN or METRICS_PORT\\)',
          '│ Lost a key or the portal password\\? +npm run admin -- help',
        ].join('\\n +'),
      ),
    );
    // Readable lines in the terminal format, not JSON.
    expect(first.stdout).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: started/m);

    const second = await run({ ...env, LOG_FORMAT: 'json', METRICS_TOKEN: 'metrics-token-0123456789' }, /"msg":"ready"/);
    expect(second.code).toBe(0);
    expect(second.stdout).not.toContain('mia_sk_');
    const lines = second.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const ready = lines.find((l) => l.msg === 'ready');
    expect(ready.urls).toEqual({
      portal: expect.stringMatching(/^http:\/\/localhost:\d+\/portal$/),
      api: expect.stringMatching(/^http:\/\/localhost:\d+\/api\/integrations\/v1$/),
      docs: expect.stringMatching(/^http:\/\/localhost:\d+\/docs$/),
      operator_api: expect.stringMatching(/^http:\/\/localhost:\d+\/api\/platform\/v1$/),
      metrics: expect.stringMatching(/^http:\/\/localhost:\d+\/metrics \(Bearer METRICS_TOKEN\)$/),
    });
  }, 150_000);
});

describe.runIf(onPostgres())('processes started together on an empty database', () => {
  it('all start; the one that creates the database seeds the demo merchant, in the migration, and shows its credentials once', async () => {
    const name = `${process.env.TEST_DB_PREFIX ?? 'mia'}_empty_${process.pid}_${randomBytes(3).toString('hex')}`;
    const admin = new pg.Client({ connectionString: ADMIN_URL });
    await admin.connect();
    await admin.query(`create database ${name}`);
    const url = new URL(ADMIN_URL);
    url.pathname = `/${name}`;
    // Every mix the audit tried failed: all but one process exited with "/email: is already registered".
    const children = [
      spawnService('api', url.toString(), { SEED_DEMO: 'true' }),
      spawnService('worker', url.toString(), { SEED_DEMO: 'true' }),
      spawnService('api', url.toString(), { SEED_DEMO: 'true', ROLE: 'both' }),
    ];
    try {
      const outputs = await Promise.all(
        children.map(
          (child) =>
            new Promise<{ stdout: string; stderr: string }>((resolve, reject) => {
              let stdout = '';
              let stderr = '';
              const timer = setTimeout(() => reject(new Error(`no "ready" within 90 s: ${stdout}${stderr}`)), 90_000);
              child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
              child.stdout!.on('data', (c: Buffer) => {
                stdout += c.toString();
                if (stdout.includes('"msg":"ready"')) {
                  clearTimeout(timer);
                  resolve({ stdout, stderr });
                }
              });
              child.on('exit', (code) => reject(new Error(`exited (${code}): ${stdout}${stderr}`)));
            }),
        ),
      );
      // With JSON logs the credentials go to stderr: stdout stays one JSON object per line.
      expect(outputs.filter((o) => o.stderr.includes('Demo merchant created (shown once')).length).toBe(1);
      for (const o of outputs) {
        expect(o.stdout).not.toContain('mia_sk_');
        for (const line of o.stdout.trim().split('\n')) expect(() => JSON.parse(line), line).not.toThrow();
      }
      const db = new pg.Client({ connectionString: url.toString() });
      await db.connect();
      try {
        expect((await db.query('select name from merchants')).rows).toEqual([{ name: 'Demo Outfitters' }]);
      } finally {
        await db.end();
      }
    } finally {
      await stopServices(children);
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.end();
    }
  }, 150_000);
});
