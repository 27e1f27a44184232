// Process entry: `node src/main.ts` runs the roles in ROLE (api, worker or both, the default);
// `node src/main.ts migrate` applies migrations and exits.
import pino from 'pino';
import { buildApp } from './app.ts';
import { loadConfig } from './config.ts';
import { openDatabase } from './db/database.ts';
import { migrate, serverSecret } from './db/migrate.ts';
import { isNewDatabase, seedDemo, type DemoCredentials } from './db/seed.ts';
import { startWorker, type Worker } from './events/worker.ts';
import { startRetention, type RetentionJob } from './maintenance/retention.ts';

const config = loadConfig();
const log = pino({ level: config.logLevel });

async function main() {
  const command = process.argv[2];
  let handle;
  try {
    // A dropped connection is logged; the request using it answers 503 and the pool reconnects.
    handle = await openDatabase({ ...config, onConnectionError: (err) => log.warn({ err: { message: err.message, code: (err as { code?: string }).code } }, 'database connection lost') });
  } catch (err) {
    log.fatal((err as Error).message);
    process.exit(1);
  }
  const applied = await migrate(handle.db);
  if (applied.length) log.info({ applied }, 'migrations applied');
  if (command === 'migrate') {
    await handle.close();
    return;
  }

  let demo: DemoCredentials | null = null;
  if (config.seedDemo && (await isNewDatabase(handle.db))) demo = await seedDemo(handle.db);
  const secret = await serverSecret(handle.db, config.secretKey);

  const app = config.roles.includes('api') ? await buildApp({ db: handle.db, config, secret, logger: log }) : null;
  const worker: Worker | null = config.roles.includes('worker') ? startWorker(handle.db, config, log) : null;
  const retention: RetentionJob | null = config.roles.includes('worker') ? startRetention(handle.db, config, log) : null;
  if (app) await app.listen({ port: config.port, host: config.host });

  const base = config.publicBaseUrl ?? `http://localhost:${config.port}`;
  log.info({ roles: config.roles, database: handle.kind }, 'started');
  if (demo && app) printDemo(base, demo);

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), 15_000);
    force.unref();
    await app?.close(); // stops accepting, lets in-flight requests finish
    await worker?.stop(); // lets in-flight deliveries finish
    await retention?.stop();
    await handle.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}

function printDemo(base: string, demo: DemoCredentials) {
  // Shown once, when the demo merchant is created: only hashes are stored.
  process.stdout.write(`
  ┌ Demo merchant created (shown once; only hashes are stored)
  │ API key, all scopes:             ${demo.apiKey}
  │ API key, Warehouse, Main only:   ${demo.warehouseKey}
  │ Portal:  ${base}/portal   email ${demo.email}   password ${demo.password}
  │ API:     ${base}/api/integrations/v1   (try: curl -H "Authorization: Bearer <key>" ${base}/api/integrations/v1/orders)
  │ Docs:    ${base}/docs
  │ Operator API: ${base}/api/platform/v1 ${config.platformAdminToken ? '(PLATFORM_ADMIN_TOKEN is set)' : '(disabled: set PLATFORM_ADMIN_TOKEN)'}
  └
`);
}

main().catch((err) => {
  log.fatal({ err }, 'failed to start');
  process.exit(1);
});
