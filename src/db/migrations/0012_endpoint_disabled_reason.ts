// Why a webhook endpoint is disabled, and since when, for the portal: `gone` when a delivery was
// answered 410 Gone (the worker disabled it), `manual` when someone disabled it (portal or operator
// API). Both are null while the endpoint is enabled. An endpoint disabled before this migration
// gets the reason its history shows: `gone` when its last attempt was answered 410, else `manual`,
// since its last change.
export const statements: string[] = [
  `alter table webhook_endpoints
     add column disabled_reason text check (disabled_reason in ('gone', 'manual')),
     add column disabled_at timestamptz(3)`,
  `update webhook_endpoints e
      set disabled_reason = case when last.status_code = 410 then 'gone' else 'manual' end,
          disabled_at = e.updated_at
     from webhook_endpoints s
     left join lateral (
       select a.status_code
         from webhook_deliveries d
         join webhook_attempts a on a.delivery_id = d.id
        where d.endpoint_id = s.id
        order by a.created_at desc, a.attempt desc
        limit 1) last on true
    where s.id = e.id and e.status = 'disabled'`,
];
