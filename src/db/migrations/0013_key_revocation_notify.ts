// A revocation is announced by the database itself, whoever writes it: any UPDATE that sets
// api_keys.revoked_at sends NOTIFY api_key_changes with the key's id (at commit), on which every API
// process forgets its cached copy of the key (src/http/keys.ts). The revoking statement sent it
// itself before, so a revocation written by anything else (a process of an older version during a
// rolling deploy, an operator's psql in an incident) was never heard, and a process that had the
// key cached kept accepting it until it restarted.
export const statements: string[] = [
  `create function api_keys_revoked() returns trigger language plpgsql as $$
   begin
     perform pg_notify('api_key_changes', new.id::text);
     return null;
   end $$`,
  `create trigger api_keys_revoked after update of revoked_at on api_keys for each row execute function api_keys_revoked()`,
];
