// Why a webhook endpoint is disabled, and since when, for the portal: `gone` when a delivery was
// answered 410 Gone (the worker disabled it), `manual` when someone disabled it (portal or operator
// API). Both are null while the endpoint is enabled, and for endpoints disabled before this column.
export const statements: string[] = [
  `alter table webhook_endpoints
     add column disabled_reason text check (disabled_reason in ('gone', 'manual')),
     add column disabled_at timestamptz(3)`,
];
