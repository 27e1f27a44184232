// The service as a real process of its own (src/main.ts), for the suites that run the production
// topology: API and worker processes on one database.
import { spawn, type ChildProcess } from 'node:child_process';
import { OPERATOR_TOKEN } from './helpers.ts';

/**
 * Spawns `src/main.ts` with the given role and a clean environment (only PATH and HOME inherited),
 * listening on 127.0.0.1 at a port of its choosing, JSON logs on stdout; `env` adds or overrides.
 */
export function spawnService(role: 'api' | 'worker', databaseUrl: string, env: Record<string, string> = {}): ChildProcess {
  return spawn(process.execPath, ['src/main.ts'], {
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      ROLE: role,
      DATABASE_URL: databaseUrl,
      HOST: '127.0.0.1',
      PORT: '0',
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      PLATFORM_ADMIN_TOKEN: OPERATOR_TOKEN,
      SEED_DEMO: 'false',
      LOG_FORMAT: 'json',
      LOG_LEVEL: 'info',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/**
 * Spawns `src/main.ts` quietly: this process's environment (test prefixes included) plus `env`, no demo
 * seed, warnings only, stdout ignored and stderr shown.
 */
export function spawnQuietService(env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, ['src/main.ts'], {
    env: { ...process.env, SEED_DEMO: 'false', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

/** SIGTERM to every process still running; resolves once each has exited. */
export async function stopServices(children: ChildProcess[]): Promise<void> {
  await Promise.all(
    children.map((c) => {
      if (c.exitCode !== null) return null;
      const gone = new Promise((r) => c.once('exit', r));
      c.kill('SIGTERM');
      return gone;
    }),
  );
}
