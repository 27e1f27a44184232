// Indexes the retention job needs: purges select by age, and an event can go only once no
// delivery references it (without an index on event_id every event delete scans the deliveries).
export const statements: string[] = [
  `create index events_created on events (created_at)`,
  `create index webhook_deliveries_created on webhook_deliveries (created_at)`,
  `create index webhook_deliveries_event on webhook_deliveries (event_id)`,
];
