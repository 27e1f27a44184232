// Runs the connector with the file-based stand-in warehouse.
//
//   MIA_BASE_URL=http://localhost:3000 MIA_API_KEY=mia_… WEBHOOK_SECRETS=whsec_… \
//   DATA_DIR=./connector-data PORT=4100 npm start -w warehouse-connector
//
// Point a webhook endpoint (Warehouse events, the key's locations) at http://<host>:PORT/webhooks.
import { startConnector } from './connector.ts';
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
const connector = await startConnector({
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
});

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    void connector.stop().then(() => process.exit(0));
  });
}
