// Locations, vendors, tags and media assets: the reference data other records point at.
import type { Ctx } from '../../http/context.ts';
import type { PageRequest } from '../../http/paging.ts';
import { iso } from '../../http/serialize.ts';
import { found } from '../../http/errors.ts';
import { insertMediaAsset, insertNamed, selectMediaAsset, selectMediaAssetPage, selectNamed, selectNamedPage, type NamedTable } from './queries.ts';

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

const NOUNS: Record<NamedTable, string> = { locations: 'location', vendors: 'vendor', tags: 'tag' };

/** One location (of the key's locations), vendor or tag; 404 when the merchant has none by this id. */
export async function getNamed(ctx: Ctx, table: NamedTable, id: string) {
  return presentNamed(found(await selectNamed(ctx.db, ctx, table, id), NOUNS[table]));
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

export async function getMediaAsset(ctx: Ctx, id: string) {
  return presentAsset(found(await selectMediaAsset(ctx.db, ctx, id), 'media asset'));
}
