// Wake the webhook worker at commit: any statement that adds deliveries (the outbox fan-out, a
// resend, the test action, a bulk insert), or an endpoint turning enabled again, notifies
// 'webhook_deliveries' (src/events/wake.ts). NOTIFY is transactional: it is sent when the writing
// transaction commits and dropped if it rolls back, and identical notifications of one transaction
// are folded into one, so a batch costs one notification. A statement that adds no rows sends none.
export const statements: string[] = [
  `create function webhook_deliveries_added() returns trigger language plpgsql as $$
   begin
     if exists (select 1 from new_rows) then perform pg_notify('webhook_deliveries', ''); end if;
     return null;
   end $$`,
  `create trigger webhook_deliveries_wake after insert on webhook_deliveries
     referencing new table as new_rows for each statement execute function webhook_deliveries_added()`,
  `create function webhook_endpoint_enabled() returns trigger language plpgsql as $$
   begin
     perform pg_notify('webhook_deliveries', '');
     return null;
   end $$`,
  `create trigger webhook_endpoints_wake after update of status on webhook_endpoints
     for each row when (new.status = 'enabled' and old.status is distinct from 'enabled') execute function webhook_endpoint_enabled()`,
];
