// The one way this service LISTENs on PostgreSQL: a connection of its own, outside the pool (a pooled
// connection would be handed to queries and lose the LISTEN). When it is lost (backend terminated,
// server restart, network) it reconnects with backoff; `onConnected` and `onLost` say when
// notifications can and cannot be trusted to arrive, so each user catches up after a reconnection.
// Users: the API key cache (src/app.ts, channels of src/http/keys.ts) and the webhook worker's wake-up
// (src/events/wake.ts). They keep a connection each, even in a process that runs both roles: the
// revoking process counts the key listeners by application_name, and each is found (and terminated
// by the tests) by its own name.
import pg from 'pg';
import type { Logger } from 'pino';
import { statementDeadline } from './prepared.ts';

export interface ListenOptions {
  channels: string[];
  /** Shown in pg_stat_activity. */
  applicationName: string;
  /** Names the connection in the warning logged when it is lost (default "LISTEN"). */
  label?: string;
  onNotify(channel: string, payload: string | undefined): void;
  /** Listening (again): whatever happened while nobody listened is unknown. */
  onConnected(): void;
  /** No longer listening: notifications may be missed until onConnected. */
  onLost(): void;
}

export interface Listener {
  /** NOTIFY through the listening connection (false when it is down). */
  notify(channel: string, payload: string): boolean;
  close(): Promise<void>;
}

export function listen(pool: pg.Pool, options: ListenOptions, log: Pick<Logger, 'warn'>): Listener {
  let client: pg.Client | null = null;
  let closed = false;
  let retry: NodeJS.Timeout | null = null;
  let backoffMs = 100;

  async function connect() {
    retry = null;
    if (closed) return;
    // pg's own query_timeout here: this connection's statements are few (LISTEN, a revocation's NOTIFY).
    const c = new pg.Client({ ...pool.options, application_name: options.applicationName, keepAlive: true, query_timeout: statementDeadline(pool)?.ms });
    let lost = false;
    const onLost = (err?: Error) => {
      if (lost) return;
      lost = true;
      if (client === c) {
        client = null;
        options.onLost();
      }
      c.end().catch(() => {});
      if (closed) return;
      log.warn(
        { err: err ? { message: err.message, code: (err as { code?: string }).code } : undefined, channels: options.channels, retryInMs: backoffMs },
        `${options.label ?? 'LISTEN'} connection lost; reconnecting`,
      );
      retry = setTimeout(() => void connect(), backoffMs); // connect() handles its own failures and never rejects
      backoffMs = Math.min(backoffMs * 2, 5_000);
    };
    c.on('error', onLost);
    c.on('end', () => onLost());
    c.on('notification', (n) => {
      if (options.channels.includes(n.channel)) options.onNotify(n.channel, n.payload);
    });
    try {
      await c.connect();
      for (const channel of options.channels) await c.query(`listen ${pg.escapeIdentifier(channel)}`);
    } catch (err) {
      onLost(err as Error);
      return;
    }
    if (lost) return;
    if (closed) {
      await c.end().catch(() => {});
      return;
    }
    client = c;
    backoffMs = 100;
    options.onConnected();
  }
  void connect();

  return {
    notify(channel, payload) {
      if (!client) return false;
      client.query('select pg_notify($1, $2)', [channel, payload]).catch(() => {});
      return true;
    },
    async close() {
      closed = true;
      if (retry) clearTimeout(retry);
      const c = client;
      client = null;
      await c?.end().catch(() => {});
    },
  };
}
