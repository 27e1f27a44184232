// The catalog's link tables (a record's ordered list of tags, gallery images, products,
// collections), one descriptor per kind of link, and the three things done with them: list the
// links of many records (one statement, grouped by a map), load one record's, replace one record's.
import { sql } from 'kysely';
import type { Database } from '../../db/database.ts';
import { ofMerchant, type Scope } from '../../db/scope.ts';
import { iso } from '../../http/serialize.ts';

interface LinkKind {
  table: string;
  /** The column naming the record that owns the list. */
  owner: string;
  /** The column naming what it links to. */
  target: string;
  /** A target may appear once (the primary key includes it), so a replacement drops repeats. */
  distinct: boolean;
}

const kind = (table: string, owner: string, target: string, distinct = true): LinkKind => ({ table, owner, target, distinct });

export const LINKS = {
  productTags: kind('product_tags', 'product_id', 'tag_id'),
  // The gallery's key is its position: the same image may appear twice.
  productGallery: kind('product_gallery', 'product_id', 'asset_id', false),
  collectionProducts: kind('collection_products', 'collection_id', 'product_id'),
  collectionTags: kind('collection_tags', 'collection_id', 'tag_id'),
  videoProducts: kind('social_video_products', 'social_video_id', 'product_id'),
  videoCollections: kind('social_video_collections', 'social_video_id', 'collection_id'),
} as const;

export type Link = keyof typeof LINKS;

/** The links of every record in `ownerIds`, each list in its position order. */
export async function listLinks(db: Database, scope: Scope, link: Link, ownerIds: string[]): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  if (ownerIds.length === 0) return out;
  const { table, owner, target } = LINKS[link];
  const { rows } = await sql<{ owner: string; target: string }>`
    select ${sql.ref(owner)} as owner, ${sql.ref(target)} as target from ${sql.table(table)}
    where ${ofMerchant(table, scope)} and ${sql.ref(owner)} in (${sql.join(ownerIds)})
    order by position`.execute(db);
  for (const r of rows) {
    const list = out.get(r.owner);
    if (list) list.push(r.target);
    else out.set(r.owner, [r.target]);
  }
  return out;
}

/** One record's links, in position order. */
export async function loadLinks(db: Database, scope: Scope, link: Link, ownerId: string): Promise<string[]> {
  return (await listLinks(db, scope, link, [ownerId])).get(ownerId) ?? [];
}

/** Replace one record's links with `targetIds`, in that order. */
export async function replaceLinks(trx: Database, scope: Scope, link: Link, ownerId: string, targetIds: string[]): Promise<void> {
  const { table, owner, target, distinct } = LINKS[link];
  await sql`delete from ${sql.table(table)} where ${ofMerchant(table, scope)} and ${sql.ref(owner)} = ${ownerId}`.execute(trx);
  const ids = distinct ? [...new Set(targetIds)] : targetIds;
  if (ids.length === 0) return;
  const rows = ids.map((id, position) => sql`(${scope.merchantId}, ${ownerId}, ${id}, ${position})`);
  await sql`insert into ${sql.table(table)} (merchant_id, ${sql.ref(owner)}, ${sql.ref(target)}, position) values ${sql.join(rows)}`.execute(trx);
}

/** A record row as the API shows it: its columns, its link lists, ISO timestamps. */
export function withLinks<R extends { created_at: Date; updated_at: Date }, L extends Record<string, string[]>>(
  { created_at, updated_at, ...columns }: R,
  links: L,
) {
  return { ...columns, ...links, created_at: iso(created_at), updated_at: iso(updated_at) };
}

/** Rows as the API shows them with their link lists, named by field: `{ product_ids: 'collectionProducts', … }`. */
export async function presentWithLinks<R extends { id: string; created_at: Date; updated_at: Date }, F extends string>(
  db: Database,
  scope: Scope,
  rows: R[],
  fields: Record<F, Link>,
) {
  const named = Object.entries<Link>(fields);
  const lists = await Promise.all(
    named.map(([, link]) =>
      listLinks(
        db,
        scope,
        link,
        rows.map((r) => r.id),
      ),
    ),
  );
  return rows.map((row) => {
    const links: Record<string, string[]> = {};
    named.forEach(([field], i) => (links[field] = lists[i].get(row.id) ?? []));
    return withLinks(row, links as Record<F, string[]>);
  });
}

/** Replace each link list given, in order; an undefined list is kept. */
export async function replaceLinkSets(trx: Database, scope: Scope, ownerId: string, sets: [Link, string[] | undefined][]): Promise<void> {
  for (const [link, ids] of sets) if (ids) await replaceLinks(trx, scope, link, ownerId, ids);
}
