// Memory under hostile bodies, measured on a real server process (`node src/main.ts`): rounds of
// 20 parallel maximum-size (≈1 MiB) bodies of the shapes that cost the most to parse and
// validate must keep the process's peak RSS (VmHWM) under 600 MB, on PostgreSQL and on PGlite.
// On PostgreSQL the peak counts from the process's start. On PGlite, where the embedded database
// lives in the same process (~250 MB at rest, README "Memory"), starting on an empty DATA_DIR runs
// initdb (a second WebAssembly instance) once: that start-up peak has its own bound (800 MB), then
// the high-water mark is reset (/proc/<pid>/clear_refs) so the rounds are measured alone. Before
// PGlite ran with small shared_buffers and V8's baseline wasm compiler only, the rounds peaked at
// ~1.1 GB.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onPostgres, testDatabase, type TestDatabase } from './helpers.ts';

const TOKEN = 'memory-operator-token';
const LIMIT_MB = 600;
const PGLITE_START_LIMIT_MB = 800;
const ROUNDS = Number(process.env.MEMORY_ROUNDS ?? 3);
let child: ChildProcess;
let base: string;
let database: TestDatabase | null = null;
let dataDir: string | null = null;

const status = (field: 'VmRSS' | 'VmHWM') => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(fs.readFileSync(`/proc/${child.pid}/status`, 'utf8'))![1]) / 1024;

async function call(method: string, url: string, body?: string) {
  const res = await fetch(`${base}${url}`, { method, headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, body });
  return { status: res.status, body: await res.text() };
}

describe(`memory under 20 parallel 1 MiB bodies (${onPostgres() ? 'PostgreSQL' : 'PGlite'})`, () => {
  beforeAll(async () => {
    if (onPostgres()) database = await testDatabase();
    else dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'memory-test-'));
    const where = database ? { DATABASE_URL: database.url! } : { DATABASE_URL: '', DATA_DIR: dataDir! };
    child = spawn(process.execPath, ['src/main.ts'], {
      env: {
        ...process.env,
        ...where,
        PORT: '0',
        HOST: '127.0.0.1',
        PLATFORM_ADMIN_TOKEN: TOKEN,
        SEED_DEMO: 'false',
        ROLE: 'api',
        LOG_LEVEL: 'info',
        REDIS_URL: '',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    base = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('the server did not start within 60 s')), 60_000);
      let out = '';
      child.stdout!.on('data', (c) => {
        out += c;
        const m = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
        if (m) {
          clearTimeout(timer);
          child.stdout!.removeAllListeners('data');
          child.stdout!.resume();
          resolve(m[1]);
        }
      });
      child.on('exit', (code) => reject(new Error(`the server exited (${code}): ${out.slice(-2000)}`)));
    });
  }, 90_000);
  afterAll(async () => {
    child?.kill('SIGKILL');
    await new Promise((r) => (child?.exitCode === null ? child.once('exit', r) : r(null)));
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
    return database?.close();
  });

  it(`keeps peak RSS under ${LIMIT_MB} MB and answers every body with a 4xx`, async () => {
    const merchant = JSON.parse((await call('POST', '/api/platform/v1/merchants', JSON.stringify({ name: 'Memory' }))).body).data.id;
    const M = `/api/platform/v1/merchants/${merchant}`;
    const MiB = 1024 * 1024;
    const shapes: [string, string, string][] = [
      ['100,000 invalid scopes', `${M}/api-keys`, JSON.stringify({ label: 'k', scopes: Array(110_000).fill('bogus') })],
      ['90,000 unknown fields', `${M}/api-keys`, JSON.stringify(Object.fromEntries(Array.from({ length: 90_000 }, (_, i) => [`k${i}`, 0])))],
      [
        '50,000 invalid variants',
        `${M}/connected-sync`,
        JSON.stringify({
          source_name: 's',
          products: Array.from({ length: 500 }, () => ({ external_id: 'e', title: 't', variants: Array(100).fill({ sku: 123456 }) })),
        }),
      ],
      ['500,000 numbers', `${M}/connected-sync`, JSON.stringify({ source_name: 's', extra: Array(500_000).fill(1) })],
      ['a 1 MiB two-byte string', `${M}/tags`, JSON.stringify({ name: 'é'.repeat(MiB / 2 - 20) })],
    ];
    for (const [name, , body] of shapes) expect([name, Buffer.byteLength(body) <= MiB && Buffer.byteLength(body) > 0.7 * MiB]).toEqual([name, true]);

    const baseline = status('VmRSS');
    const startPeak = status('VmHWM');
    if (!onPostgres()) {
      expect(startPeak).toBeLessThan(PGLITE_START_LIMIT_MB);
      fs.writeFileSync(`/proc/${child.pid}/clear_refs`, '5'); // VmHWM := VmRSS
    }
    const answers: Record<string, number> = {};
    let slowest = 0;
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, url, body] of shapes) {
        const started = performance.now();
        const results = await Promise.all(Array.from({ length: 20 }, () => call('POST', url, body)));
        slowest = Math.max(slowest, performance.now() - started);
        for (const r of results) answers[`${name} → ${r.status}`] = (answers[`${name} → ${r.status}`] ?? 0) + 1;
      }
    }
    const peak = status('VmHWM');
    console.log(
      `memory: RSS ${baseline.toFixed(0)} MB before (peak while starting ${startPeak.toFixed(0)} MB), peak of the rounds ${peak.toFixed(0)} MB, after ${status('VmRSS').toFixed(0)} MB; slowest round of 20 ${slowest.toFixed(0)} ms; ${JSON.stringify(answers)}`,
    );
    expect(answers).toEqual(Object.fromEntries(shapes.map(([name]) => [`${name} → 422`, 20 * ROUNDS])));
    expect(peak).toBeLessThan(LIMIT_MB);
  }, 900_000);
});
