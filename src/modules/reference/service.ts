// Locations, vendors, tags and media assets: the reference data other records point at.
import type { Ctx } from '../../http/context.ts';
import { afterPosition, finishPage, type PageRequest } from '../../http/paging.ts';
import { iso } from '../../http/serialize.ts';

type NamedTable = 'locations' | 'vendors' | 'tags';

interface NamedRow {
  id: string;
  name: string;
  created_at: Date;
  updated_at: Date;
}

export const presentNamed = (r: NamedRow) => ({ id: r.id, name: r.name, created_at: iso(r.created_at), updated_at: iso(r.updated_at) });

export async function createNamed(ctx: Ctx, table: NamedTable, name: string) {
  const row = await ctx.db
    .insertInto(table)
    .values({ merchant_id: ctx.merchantId, name })
    .returning(['id', 'name', 'created_at', 'updated_at'])
    .executeTakeFirstOrThrow();
  return presentNamed(row);
}

export async function listNamed(ctx: Ctx, table: NamedTable, page: PageRequest, filters: { updated_after?: string }) {
  let q = ctx.db
    .selectFrom(table)
    .select(['id', 'name', 'created_at', 'updated_at'])
    .where('merchant_id', '=', ctx.merchantId)
    .where(afterPosition(table, page.after));
  if (filters.updated_after) q = q.where('updated_at', '>', new Date(filters.updated_after));
  // A location-restricted key sees only its own locations.
  if (table === 'locations' && ctx.locationIds) q = q.where('id', 'in', ctx.locationIds.length ? ctx.locationIds : ['00000000-0000-0000-0000-000000000000']);
  const rows = await q.orderBy('updated_at').orderBy('id').limit(page.limit + 1).execute();
  const { items, meta } = finishPage(page, rows);
  return { items: items.map(presentNamed), meta };
}

interface AssetRow {
  id: string;
  url: string;
  kind: 'image' | 'video';
  alt: string | null;
  source: 'native' | 'connected';
  source_name: string | null;
  external_id: string | null;
  created_at: Date;
  updated_at: Date;
}

const assetColumns = ['id', 'url', 'kind', 'alt', 'source', 'source_name', 'external_id', 'created_at', 'updated_at'] as const;

export const presentAsset = (a: AssetRow) => ({
  id: a.id,
  url: a.url,
  kind: a.kind,
  alt: a.alt,
  source: a.source,
  source_name: a.source_name,
  external_id: a.external_id,
  created_at: iso(a.created_at),
  updated_at: iso(a.updated_at),
});

export async function createMediaAsset(ctx: Ctx, input: { url: string; kind: 'image' | 'video'; alt?: string }) {
  const row = await ctx.db
    .insertInto('media_assets')
    .values({ merchant_id: ctx.merchantId, url: input.url, kind: input.kind, alt: input.alt ?? null, source_name: null, external_id: null })
    .returning(assetColumns)
    .executeTakeFirstOrThrow();
  return presentAsset(row);
}

export async function listMediaAssets(ctx: Ctx, page: PageRequest, filters: { updated_after?: string }) {
  let q = ctx.db.selectFrom('media_assets').select(assetColumns).where('merchant_id', '=', ctx.merchantId).where(afterPosition('media_assets', page.after));
  if (filters.updated_after) q = q.where('updated_at', '>', new Date(filters.updated_after));
  const rows = await q.orderBy('updated_at').orderBy('id').limit(page.limit + 1).execute();
  const { items, meta } = finishPage(page, rows);
  return { items: items.map(presentAsset), meta };
}
