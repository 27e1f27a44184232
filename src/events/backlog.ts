// The webhook backlog across all merchants, read when metrics are scraped (an operator's view,
// hence no merchant filter). Uses the partial index on pending deliveries.
import { sql } from 'kysely';
import type { Database } from '../db/database.ts';
import type { Backlog } from '../metrics.ts';

export async function webhookBacklog(db: Database): Promise<Backlog> {
  const { rows } = await sql<{ pending: string; oldest_pending: number | null; due: string; oldest_due: number | null }>`
    select count(*) as pending,
           extract(epoch from clock_timestamp() - min(d.created_at))::float8 as oldest_pending,
           count(*) filter (where d.next_attempt_at <= clock_timestamp() and e.status = 'enabled') as due,
           extract(epoch from clock_timestamp() - min(d.next_attempt_at) filter (where e.status = 'enabled'
             and (d.locked_until is null or d.locked_until < clock_timestamp())))::float8 as oldest_due
      from webhook_deliveries d
      join webhook_endpoints e on e.id = d.endpoint_id
     where d.status = 'pending'`.execute(db);
  const r = rows[0];
  return {
    pending: Number(r.pending),
    oldestPendingSeconds: Math.max(0, r.oldest_pending ?? 0),
    due: Number(r.due),
    oldestDueSeconds: Math.max(0, r.oldest_due ?? 0),
  };
}
