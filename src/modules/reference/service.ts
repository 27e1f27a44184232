// Locations, vendors, tags and media assets: the reference data other records point at.
import type { Ctx } from '../../http/context.ts';
import type { PageRequest } from '../../http/paging.ts';
import { iso } from '../../http/serialize.ts';
import { insertMediaAsset, insertNamed, selectMediaAssetPage, selectNamedPage, type NamedTable } from './queries.ts';

interface NamedRow {
  id: string;
  name: string;
  created_at: Date;
  updated_at: Date;
}

export const presentNamed = (r: NamedRow) => ({ id: r.id, name: r.name, created_at: iso(r.created_at), updated_at: iso(r.updated_at) });

export async function createNamed(ctx: Ctx, table: NamedTable, name: string) {
  return presentNamed(await insertNamed(ctx.db, ctx, table, name));
}

export async function listNamed(ctx: Ctx, table: NamedTable, page: PageRequest, filters: { updated_after?: string }) {
  const { items, meta } = await selectNamedPage(ctx.db, ctx, table, page, filters.updated_after);
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
  return presentAsset(await insertMediaAsset(ctx.db, ctx, { url: input.url, kind: input.kind, alt: input.alt ?? null, source_name: null, external_id: null }));
}

export async function listMediaAssets(ctx: Ctx, page: PageRequest, filters: { updated_after?: string }) {
  const { items, meta } = await selectMediaAssetPage(ctx.db, ctx, page, filters.updated_after);
  return { items: items.map(presentAsset), meta };
}
