// The webhook delivery worker: not built yet.
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';

export interface Worker {
  stop(): Promise<void>;
}

export function startWorker(_db: Database, _config: Config, _log: Logger): Worker {
  return { stop: async () => {} };
}
