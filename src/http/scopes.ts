// Scope names, their aliases and the Warehouse preset (contract §3).

export const SCOPES = [
  'products.read',
  'products.write',
  'products.submit',
  'collections.read',
  'collections.write',
  'collections.submit',
  'orders.read',
  'fulfillments.read',
  'fulfillments.create',
  'fulfillments.tracking.write',
  'fulfillments.write',
  'inventory.read',
  'inventory.adjust',
  'inventory.write',
  'social_videos.read',
  'social_videos.write',
] as const;

export type Scope = (typeof SCOPES)[number];

// A key holding the alias holds every scope it stands for.
export const SCOPE_ALIASES: Partial<Record<Scope, Scope[]>> = {
  'fulfillments.write': ['fulfillments.create', 'fulfillments.tracking.write'],
  'inventory.write': ['inventory.adjust'],
};

export const WAREHOUSE_PRESET: Scope[] = [
  'orders.read',
  'products.read',
  'inventory.read',
  'fulfillments.read',
  'inventory.adjust',
  'fulfillments.create',
  'fulfillments.tracking.write',
];

export function effectiveScopes(granted: readonly string[]): Set<string> {
  const out = new Set<string>(granted);
  for (const s of granted) for (const implied of SCOPE_ALIASES[s as Scope] ?? []) out.add(implied);
  return out;
}
