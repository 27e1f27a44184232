// Demo orders for a new database: not built yet.
import type { DemoContext } from '../seed.ts';

export async function seedOrders(_demo: DemoContext): Promise<void> {}
