// Process entry: `node src/main.ts` runs the roles in ROLE (api, worker or both, the default);
// `node src/main.ts migrate` applies migrations and exits. Every setting is checked before anything
// starts; a setting that cannot work stops the process with one sentence saying what to fix.
import http from 'node:http';
import v8 from 'node:v8';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { buildApp } from './app.ts';
import { ConfigError, loadConfig, type Config } from './config.ts';
import { openDatabase, withoutQueryTimeout, type DatabaseHandle } from './db/database.ts';
import { migrate, serverSecret } from './db/migrate.ts';
import { seedDemo, type DemoCredentials } from './seed/demo.ts';
import { webhookBacklog } from './events/backlog.ts';
import { deliveryWake, type DeliveryWake } from './events/wake.ts';
import { startWorker, type Worker } from './events/worker.ts';
import { startRetention, type RetentionJob } from './maintenance/retention.ts';
import { createLogger } from './logger.ts';
import { renderMetrics } from './metrics.ts';
import { checkPortFree, checkPostgres, checkRedis, listenError } from './startup.ts';

let log: Logger | null = null;

async function main() {
  const config = loadConfig();
  // What holds this process's memory and why these flags: README "Memory".
  v8.setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  if (!config.databaseUrl) keepWasmOnBaselineCompiler();
  log = createLogger({ level: config.logLevel, format: config.logFormat });
  const command = process.argv[2];

  if (command !== 'migrate') {
    if (config.roles.includes('api')) await checkPortFree('PORT', config.port, config.host);
    if (config.metricsPort !== null) await checkPortFree('METRICS_PORT', config.metricsPort, config.host);
  }
  if (config.databaseUrl) await checkPostgres(config.databaseUrl);
  if (config.redisUrl && command !== 'migrate') await checkRedis(config.redisUrl);
  // A dropped connection is logged; the request using it answers 503 and the pool reconnects.
  const handle = await openDatabase({
    ...config,
    onConnectionError: (err) => log!.warn({ err: { message: err.message, code: (err as { code?: string }).code } }, 'database connection lost'),
  });
  // The demo merchant is made by the process that creates the database, in the same transaction
  // (processes started together on an empty database raced to seed it, and all but one failed).
  let demo: DemoCredentials | null = null;
  const applied = await withoutQueryTimeout(handle, (db) => migrate(db, config.seedDemo ? async (trx) => void (demo = await seedDemo(trx)) : undefined));
  if (applied.length) log.info({ applied }, 'migrations applied');
  if (command === 'migrate') {
    if (demo) printDemo(baseUrl(config, config.port), demo, config.logFormat === 'json' ? process.stderr : process.stdout);
    await handle.close();
    return;
  }

  // Handlers go in before anything is announced: a SIGTERM sent on seeing the URLs must find them.
  let app: FastifyInstance | null = null;
  let worker: Worker | null = null;
  let wake: DeliveryWake | null = null;
  let retention: RetentionJob | null = null;
  let metricsServer: http.Server | null = null;
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log!.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), 15_000);
    force.unref();
    await app?.close(); // stops accepting, lets in-flight requests finish
    await worker?.stop(); // lets in-flight deliveries finish
    await wake?.close();
    await retention?.stop();
    metricsServer?.close();
    await handle.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));

  const secret = await serverSecret(handle.db, config.secretKey);

  app = config.roles.includes('api') ? await buildApp({ db: handle.db, pool: handle.pool, config, secret, logger: log }) : null;
  if (app) {
    try {
      await app.listen({ port: config.port, host: config.host });
    } catch (err) {
      throw listenError(err, 'PORT', config.port, config.host);
    }
  }
  metricsServer = config.metricsPort !== null ? await serveMetrics(handle, config.metricsPort, config.host) : null;
  // The worker is woken by each commit that adds deliveries (src/events/wake.ts); WORKER_POLL_MS is its safety net.
  wake = config.roles.includes('worker') ? deliveryWake(handle, log) : null;
  worker = wake ? startWorker(handle.db, config, log, { wake }) : null;
  retention = config.roles.includes('worker') ? startRetention(handle.db, config, log) : null;

  log.info({ roles: config.roles, database: handle.kind }, 'started');
  const port = app ? (app.server.address() as AddressInfo).port : config.port;
  // Whatever its role, the process that made the demo merchant shows its credentials (once).
  if (demo) printDemo(baseUrl(config, port), demo, config.logFormat === 'json' ? process.stderr : process.stdout);
  printUrls(config, baseUrl(config, port), handle, log, metricsServer);
}

/**
 * After a load the heap holds ~45 MB of live objects (measured after a forced GC) but V8 let it
 * grow to ~200 MB before its next full collection (its default growth factor lets an idle-looking
 * small heap double and more). Growing it by 30 % at most keeps the garbage a full collection away
 * from that; a full collection of ~45 MB live takes a few milliseconds. Read at every collection,
 * so it can be set here; the young generation's size (--max-semi-space-size) cannot, and is set by
 * `npm start` (package.json).
 */
const HEAP_GROWING_PERCENT = 30;

/**
 * PGlite (embedded PostgreSQL) is a ~9 MB WebAssembly module. V8 first compiles it with its
 * baseline compiler (Liftoff) and then recompiles the functions that get hot with its optimizing
 * one (TurboFan): on PostgreSQL's large functions that recompilation held up to ~480 MiB more for
 * a moment (measured as the process's peak, VmHWM: 926 MiB against 447 MiB idle). Liftoff only
 * keeps the peak within ~60 MiB of idle (README "Memory"). Set before PGlite compiles its module;
 * a process started with any wasm flag of its own (`node --wasm-tier-up src/main.ts`) keeps it.
 */
function keepWasmOnBaselineCompiler() {
  if (process.execArgv.some((a) => a.startsWith('--wasm') || a.startsWith('--liftoff') || a.startsWith('--no-wasm') || a.startsWith('--no-liftoff'))) return;
  v8.setFlagsFromString('--no-wasm-tier-up');
  v8.setFlagsFromString('--no-wasm-dynamic-tiering');
}

/** METRICS_PORT: /metrics without a token, for a scraper on the private network (any role). */
async function serveMetrics(handle: DatabaseHandle, port: number, host: string): Promise<http.Server> {
  // The handler answers its own failure (500) and never rejects.
  const answer = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    if (req.method !== 'GET' || req.url?.split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Only GET /metrics is served here.\n');
      return;
    }
    try {
      const { contentType, body } = await renderMetrics({ backlog: () => webhookBacklog(handle.db), pool: handle.pool });
      res.writeHead(200, { 'content-type': contentType }).end(body);
    } catch (err) {
      log?.error({ err }, 'metrics scrape failed');
      res.writeHead(500, { 'content-type': 'text/plain' }).end('metrics failed\n');
    }
  };
  const server = http.createServer((req, res) => void answer(req, res));
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err) => reject(listenError(err, 'METRICS_PORT', port, host)));
    server.listen(port, host, () => resolve());
  });
  return server;
}

/** PUBLIC_BASE_URL, or this machine at the port actually taken (PORT=0 picks a free one). */
function baseUrl(config: Config, port: number): string {
  return config.publicBaseUrl?.replace(/\/$/, '') ?? `http://localhost:${port}`;
}

/** On every start: where everything is, and how to get back in when the printed credentials are lost. */
function printUrls(config: Config, base: string, handle: DatabaseHandle, logger: Logger, metricsServer: http.Server | null) {
  const metricsPort = metricsServer ? (metricsServer.address() as AddressInfo).port : null;
  const metrics =
    [
      config.metricsToken && config.roles.includes('api') ? `${base}/metrics (Bearer METRICS_TOKEN)` : null,
      metricsPort !== null ? `http://localhost:${metricsPort}/metrics` : null,
    ]
      .filter(Boolean)
      .join(' and ') || 'off (set METRICS_TOKEN or METRICS_PORT)';
  const urls = {
    portal: `${base}/portal`,
    api: `${base}/api/integrations/v1`,
    docs: `${base}/docs`,
    operator_api: `${base}/api/platform/v1`,
    metrics,
  };
  const database = handle.kind === 'pglite' ? `embedded, DATA_DIR ${config.dataDir}` : 'PostgreSQL (DATABASE_URL)';
  if (config.logFormat === 'json' || !config.roles.includes('api')) {
    logger.info({ urls: config.roles.includes('api') ? urls : undefined, metrics, database }, 'ready');
    return;
  }
  process.stdout.write(`
  ┌ Merchant Integration API is running (${config.roles.join(' + ')}; database: ${database})
  │ Portal:        ${urls.portal}
  │ API:           ${urls.api}
  │ Docs:          ${urls.docs}
  │ Operator API:  ${urls.operator_api} ${config.platformAdminToken ? '(PLATFORM_ADMIN_TOKEN is set)' : '(disabled: set PLATFORM_ADMIN_TOKEN)'}
  │ Metrics:       ${metrics}
  │ Lost a key or the portal password?  npm run admin -- help   (README: "Operator CLI and recovering credentials")
  └
`);
}

/** Shown once, when the demo merchant is created: only hashes are stored. On stderr with JSON logs, whose stdout is one JSON object per line. */
function printDemo(base: string, demo: DemoCredentials, out: NodeJS.WriteStream) {
  out.write(`
  ┌ Demo merchant created (shown once; only hashes are stored)
  │ API key, all scopes:             ${demo.apiKey}
  │ API key, Warehouse, Main only:   ${demo.warehouseKey}
  │ Portal login:  email ${demo.email}   password ${demo.password}
  │ Try:  curl -H "Authorization: Bearer <key>" ${base}/api/integrations/v1/orders
  └
`);
}

main().catch((err) => {
  if (err instanceof ConfigError) {
    process.stderr.write(`${err.message}\n`);
  } else {
    process.stderr.write(`Could not start: ${(err as Error).message ?? String(err)} (run with LOG_LEVEL=debug for details).\n`);
    if (log?.isLevelEnabled('debug')) log.debug({ err }, 'start-up failure');
  }
  process.exit(1);
});
