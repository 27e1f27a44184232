// Demo webhooks for a new database: not built yet.
import type { DemoContext } from '../seed.ts';

export async function seedWebhooks(_demo: DemoContext): Promise<void> {}
