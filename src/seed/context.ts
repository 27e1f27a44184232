// What the demo seed's parts share: the demo merchant's context and the records made so far.
import type { Ctx } from '../http/context.ts';

export interface DemoContext {
  ctx: Ctx;
  locations: { id: string; name: string }[];
  vendors: { id: string; name: string }[];
  tags: { id: string; name: string }[];
  images: { id: string; url: string }[];
  /** Filled by seedCatalog: native variants by SKU. */
  variants: Record<string, string>;
}
