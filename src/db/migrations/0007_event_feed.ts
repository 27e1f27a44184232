// The event feed (GET /events): every event records its writing transaction and a feed position,
// (position_xid, seq), so the feed can page in commit order and never skip a late commit.
// Existing events keep their (created_at, id) order: they take the migration's transaction id and
// sequence numbers in that order, and so come before every event written afterwards.
export const statements: string[] = [
  `create sequence events_seq as bigint`,
  `alter table events add column xid xid8, add column position_xid xid8, add column seq bigint`,
  `update events e
      set xid = pg_current_xact_id(), position_xid = pg_current_xact_id(), seq = o.n
     from (select id, row_number() over (order by created_at, id) as n from events) o
    where o.id = e.id`,
  `select setval('events_seq', greatest((select max(seq) from events), 1), exists (select 1 from events))`,
  // The writing transaction (diagnostics), and the larger of it and the next transaction id as of
  // the insert: an event written after another transaction committed is positioned after it.
  `alter table events
     alter column xid set default pg_current_xact_id(),
     alter column xid set not null,
     alter column position_xid set default greatest(pg_current_xact_id(), pg_snapshot_xmax(pg_current_snapshot())),
     alter column position_xid set not null,
     alter column seq set default nextval('events_seq'),
     alter column seq set not null`,
  `alter sequence events_seq owned by events.seq`,
  `create unique index events_feed on events (merchant_id, position_xid, seq)`,
];
