// Ordered migrations, applied at start and by `npm run migrate`. A new migration is a new file
// added to the list; applied ones never change. Applied migrations are recorded by name, and a
// recorded name no longer in the list is ignored: 0004_webhooks was empty and has been removed
// (databases that recorded it are unaffected); its number stays unused so no name is reused.
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import type { Database } from './database.ts';
import * as foundation from './migrations/0001_foundation.ts';
import * as catalog from './migrations/0002_catalog.ts';
import * as warehouse from './migrations/0003_warehouse.ts';
import * as portal from './migrations/0005_portal.ts';
import * as retention from './migrations/0006_retention.ts';
import * as eventFeed from './migrations/0007_event_feed.ts';
import * as portalConsole from './migrations/0008_portal_console.ts';
import * as deliveryWake from './migrations/0009_delivery_wake.ts';
import * as warehouseFilters from './migrations/0010_warehouse_filters.ts';
import * as requestLogUnchecked from './migrations/0011_request_log_unchecked.ts';
import * as endpointDisabledReason from './migrations/0012_endpoint_disabled_reason.ts';
import * as keyRevocationNotify from './migrations/0013_key_revocation_notify.ts';
import * as requestLogLean from './migrations/0014_request_log_lean.ts';

export const migrations: { name: string; statements: string[] }[] = [
  { name: '0001_foundation', statements: foundation.statements },
  { name: '0002_catalog', statements: catalog.statements },
  { name: '0003_warehouse', statements: warehouse.statements },
  { name: '0005_portal', statements: portal.statements },
  { name: '0006_retention', statements: retention.statements },
  { name: '0007_event_feed', statements: eventFeed.statements },
  { name: '0008_portal_console', statements: portalConsole.statements },
  { name: '0009_delivery_wake', statements: deliveryWake.statements },
  { name: '0010_warehouse_filters', statements: warehouseFilters.statements },
  { name: '0011_request_log_unchecked', statements: requestLogUnchecked.statements },
  { name: '0012_endpoint_disabled_reason', statements: endpointDisabledReason.statements },
  { name: '0013_key_revocation_notify', statements: keyRevocationNotify.statements },
  { name: '0014_request_log_lean', statements: requestLogLean.statements },
];

/**
 * Applies the migrations not applied yet. `onNewDatabase` runs in the same transaction, under the
 * same lock, when this call created the schema (applied the first migration): one process of any
 * number started at once on an empty database, and never again, whatever the data holds later.
 */
export async function migrate(db: Database, onNewDatabase?: (trx: Database) => Promise<void>): Promise<string[]> {
  return db.transaction().execute(async (trx) => {
    // Several processes may start at once against one PostgreSQL: one migrates, the others wait.
    await sql`select pg_advisory_xact_lock(7413019)`.execute(trx);
    await sql`create table if not exists schema_migrations (name text primary key, applied_at timestamptz(3) not null default clock_timestamp())`.execute(trx);
    const done = new Set((await trx.selectFrom('schema_migrations').select('name').execute()).map((r) => r.name));
    const created = !done.has(migrations[0].name);
    const applied: string[] = [];
    for (const m of migrations) {
      if (done.has(m.name)) continue;
      for (const statement of m.statements) await sql.raw(statement).execute(trx);
      await trx.insertInto('schema_migrations').values({ name: m.name }).execute();
      applied.push(m.name);
    }
    await trx
      .insertInto('settings')
      .values({ key: 'secret_key', value: randomBytes(32).toString('hex') })
      .onConflict((oc) => oc.column('key').doNothing())
      .execute();
    if (created) await onNewDatabase?.(trx);
    return applied;
  });
}

export async function isMigrated(db: Database): Promise<boolean> {
  const rows = await db.selectFrom('schema_migrations').select('name').execute();
  const done = new Set(rows.map((r) => r.name));
  return migrations.every((m) => done.has(m.name));
}

export async function serverSecret(db: Database, configured: string | null): Promise<string> {
  if (configured) return configured;
  const row = await db.selectFrom('settings').select('value').where('key', '=', 'secret_key').executeTakeFirstOrThrow();
  return row.value;
}
