// The request log keyed by its request id: two indexes instead of five, and no sequence. Request ids
// are UUIDv7 (src/app.ts): their first 48 bits are the millisecond the request came in, so ordered
// by request id the log is ordered by time, and a range of ids is a range of time (uuidV7Floor,
// src/db/uuid7.ts). The primary key serves the lookup by request id and the retention job's range;
// (merchant_id, request_id) serves the portal's newest-first pages, its lookups and the overview's
// last 24 hours. Every request paid for the three indexes and the identity sequence dropped here:
// PostgreSQL CPU per logged row 11–15 → 8 µs (docs/decisions.md, "The request log keyed by its
// request id"). A process of the previous version still writes its rows (the COPY names no id);
// its portal request-log pages fail until it is replaced.
export const statements: string[] = [
  `drop index request_log_recent`,
  `drop index request_log_merchant_time`,
  `drop index request_log_request_id`,
  `drop index request_log_created`,
  `alter table request_log drop column id`,
  `alter table request_log add primary key (request_id)`,
  `create index request_log_merchant on request_log (merchant_id, request_id)`,
];
