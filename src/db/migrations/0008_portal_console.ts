// The portal as an integration console: the exact request sent for each webhook attempt, which
// delivery a resend copied, and the API request log (kept REQUEST_LOG_RETENTION_DAYS, default 7).
export const statements: string[] = [
  `alter table webhook_attempts add column request_headers jsonb, add column request_body text`,
  `alter table webhook_deliveries add column resent_from uuid references webhook_deliveries(id) on delete set null`,
  `create table request_log (
    id bigint generated always as identity primary key,
    merchant_id uuid not null references merchants(id),
    api_key_id uuid not null references api_keys(id),
    request_id uuid not null,
    method text not null,
    path text not null,
    query text,
    status int not null,
    error_code text,
    duration_ms double precision not null,
    problem json, -- json, not jsonb: the body exactly as sent (key order kept)
    created_at timestamptz(3) not null)`,
  // The log view pages newest first by id (insertion order); the overview counts the last 24 h;
  // operators look a request up by id; the retention job deletes by age.
  `create index request_log_recent on request_log (merchant_id, id desc)`,
  `create index request_log_merchant_time on request_log (merchant_id, created_at)`,
  `create index request_log_request_id on request_log (request_id)`,
  `create index request_log_created on request_log (created_at)`,
];
