// Runs the connector with the file-based stand-in warehouse.
//
//   MIA_BASE_URL=http://localhost:3000 MIA_API_KEY=mia_… WEBHOOK_SECRETS=whsec_… \
//   DATA_DIR=./connector-data PORT=4100 npm start -w warehouse-connector
//
// Point a webhook endpoint (Warehouse events, the key's locations) at http://<host>:PORT/webhooks.
// An API that does not answer yet is waited for (with backoff); SIGINT/SIGTERM stop it at any time.
import { startConnector, type Connector } from './connector.ts';
import { FileWarehouse } from './warehouse.ts';

function required(name: string): string {
  const value = process.env[name];
  if (!value) {
    console.error(`${name} is required`);
    process.exit(2);
  }
  return value;
}

const dataDir = process.env.DATA_DIR ?? './connector-data';
// A stop may come while the connector still waits for the API at start-up: it then gives up the
// wait and releases its lock.
const stopping = new AbortController();
let connector: Connector | null = null;
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    if (connector) void connector.stop().then(() => process.exit(0));
    else stopping.abort();
  });
}
try {
  connector = await startConnector({
    baseUrl: required('MIA_BASE_URL'),
    apiKey: required('MIA_API_KEY'),
    signingSecrets: required('WEBHOOK_SECRETS')
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== ''),
    dataDir,
    warehouse: new FileWarehouse(`${dataDir}/warehouse`),
    host: process.env.HOST ?? '127.0.0.1',
    port: Number(process.env.PORT ?? 4100),
    reconcileIntervalMs: Number(process.env.RECONCILE_INTERVAL_MS ?? 60_000),
    signal: stopping.signal,
  });
} catch (err) {
  if (!stopping.signal.aborted) throw err;
  process.exit(0);
}
// Stopped after the wait, during the rest of the start.
if (stopping.signal.aborted) await connector.stop().then(() => process.exit(0));
