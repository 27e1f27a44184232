// GET /locations, /vendors, /tags, /media-assets: so integrators can discover the ids they need.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ctxOf } from '../../http/context.ts';
import { PageQuery, pageRequest } from '../../http/paging.ts';
import { Enum, LIST_ERRORS, Many, Nullable, Timestamp, Uuid, component, problems } from '../../http/schemas.ts';
import { listMediaAssets, listNamed } from './service.ts';

const named = (name: string) => component(name, Type.Object({ id: Uuid(), name: Type.String(), created_at: Timestamp(), updated_at: Timestamp() }));
export const Location = named('Location');
export const Vendor = named('Vendor');
export const Tag = named('Tag');
export const MediaAsset = component('MediaAsset', Type.Object({
  id: Uuid(),
  url: Type.String(),
  kind: Enum(['image', 'video']),
  alt: Nullable(Type.String()),
  source: Enum(['native', 'connected']),
  source_name: Nullable(Type.String()),
  external_id: Nullable(Type.String()),
  created_at: Timestamp(),
  updated_at: Timestamp(),
}));

const ListQuery = Type.Object(
  { limit: Type.Optional(PageQuery.limit), cursor: Type.Optional(PageQuery.cursor), updated_after: Type.Optional(PageQuery.updated_after) },
  { additionalProperties: false },
);

const reference: FastifyPluginAsyncTypebox = async (app) => {
  const named = [
    { operationId: 'listLocations', path: '/locations', table: 'locations', item: Location, errors: LIST_ERRORS.filter((c) => c !== 'insufficient_scope'), scope: undefined, summary: 'List fulfillment locations (a restricted key sees its own)', answer: 'A page of fulfillment locations.' },
    { operationId: 'listVendors', path: '/vendors', table: 'vendors', item: Vendor, errors: LIST_ERRORS, scope: 'products.read', summary: 'List vendors', answer: 'A page of vendors.' },
    { operationId: 'listTags', path: '/tags', table: 'tags', item: Tag, errors: LIST_ERRORS, scope: 'products.read', summary: 'List tags', answer: 'A page of tags.' },
  ] as const;
  for (const r of named) {
    app.get(
      r.path,
      {
        config: { scope: r.scope },
        schema: { operationId: r.operationId, tags: ['Reference data'], summary: r.summary, querystring: ListQuery, response: { 200: Many(r.item, r.answer), ...problems(...r.errors) } },
      },
      async (req) => {
        const page = pageRequest(app.secret, r.path, req.query);
        const { items, meta } = await listNamed(ctxOf(req), r.table, page, req.query);
        return { data: items, request_id: req.id, meta };
      },
    );
  }

  app.get(
    '/media-assets',
    {
      config: { scope: 'products.read' },
      schema: { operationId: 'listMediaAssets', tags: ['Reference data'], summary: 'List media assets (native and connected)', querystring: ListQuery, response: { 200: Many(MediaAsset, 'A page of media assets.'), ...problems(...LIST_ERRORS) } },
    },
    async (req) => {
      const page = pageRequest(app.secret, '/media-assets', req.query);
      const { items, meta } = await listMediaAssets(ctxOf(req), page, req.query);
      return { data: items, request_id: req.id, meta };
    },
  );
};

export default reference;
