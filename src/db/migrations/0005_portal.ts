// Portal sessions: only a SHA-256 of the cookie's token is stored.
export const statements: string[] = [
  `create table portal_sessions (
    id text primary key,
    merchant_id uuid not null references merchants(id),
    user_id uuid not null references portal_users(id) on delete cascade,
    csrf_token text not null,
    created_at timestamptz(3) not null default clock_timestamp(),
    last_seen_at timestamptz(3) not null default clock_timestamp(),
    expires_at timestamptz(3) not null)`,
  `create index portal_sessions_expiry on portal_sessions (expires_at)`,
];
