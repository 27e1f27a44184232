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

/** Computed once per granted list: a cached key brings the same array on every request. */
const effective = new WeakMap<readonly string[], ReadonlySet<string>>();

/** The scopes a key holds: those granted, plus every scope an alias among them stands for. */
export function effectiveScopes(granted: readonly string[]): ReadonlySet<string> {
  let out = effective.get(granted);
  if (out === undefined) {
    const scopes = new Set<string>(granted);
    for (const s of granted) for (const implied of SCOPE_ALIASES[s as Scope] ?? []) scopes.add(implied);
    effective.set(granted, (out = scopes));
  }
  return out;
}

/** What each scope allows, in words a merchant reads when creating a key. */
export const SCOPE_DESCRIPTIONS: Record<Scope, string> = {
  'products.read': 'Read products, variants, their stock, and vendors, tags and media assets.',
  'products.write': 'Create and edit native products.',
  'products.submit': 'Submit products for review (submit: true).',
  'collections.read': 'Read collections.',
  'collections.write': 'Create and edit native collections.',
  'collections.submit': 'Submit collections for review.',
  'orders.read': 'Read orders, their line items and shipping addresses.',
  'fulfillments.read': 'Read fulfillments and their tracking.',
  'fulfillments.create': 'Create fulfillments for open orders.',
  'fulfillments.tracking.write': 'Attach or replace tracking on fulfillments.',
  'fulfillments.write': 'Alias: includes fulfillments.create and fulfillments.tracking.write.',
  'inventory.read': 'Read stock levels per variant and location.',
  'inventory.adjust': 'Adjust on-hand stock (inventory adjustments).',
  'inventory.write': 'Alias: includes inventory.adjust.',
  'social_videos.read': 'Read social videos.',
  'social_videos.write': 'Create and edit social videos.',
};
