// Demo catalog for a new database: not built yet.
import type { DemoContext } from '../seed.ts';

export async function seedCatalog(_demo: DemoContext): Promise<void> {}
