// GET /locations, /vendors, /tags, /media-assets and each by id: so integrators can discover and resolve the ids they meet.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ctxOf } from '../../http/context.ts';
import { listRoute } from '../../http/paging.ts';
import { getById } from '../../http/read-routes.ts';
import { ListQuery } from '../catalog/schemas.ts';
import { Enum, LIST_ERRORS, Many, Nullable, Timestamp, Uuid, component, problems } from '../../http/schemas.ts';
import { getMediaAsset, getNamed, listMediaAssets, listNamed } from './service.ts';

const named = (name: string) => component(name, Type.Object({ id: Uuid(), name: Type.String(), created_at: Timestamp(), updated_at: Timestamp() }));
export const Location = named('Location');
export const Vendor = named('Vendor');
export const Tag = named('Tag');
export const MediaAsset = component(
  'MediaAsset',
  Type.Object({
    id: Uuid(),
    url: Type.String({ format: 'uri' }),
    kind: Enum(['image', 'video']),
    alt: Nullable(Type.String()),
    source: Enum(['native', 'connected']),
    source_name: Nullable(Type.String()),
    external_id: Nullable(Type.String()),
    created_at: Timestamp(),
    updated_at: Timestamp(),
  }),
);

const reference: FastifyPluginAsyncTypebox = async (app) => {
  const named = [
    {
      operationId: 'listLocations',
      getId: 'getLocation',
      noun: 'fulfillment location',
      path: '/locations',
      table: 'locations',
      item: Location,
      errors: LIST_ERRORS.filter((c) => c !== 'insufficient_scope'),
      scope: undefined,
      summary: 'List fulfillment locations (a restricted key sees its own)',
      answer: 'A page of fulfillment locations.',
    },
    {
      operationId: 'listVendors',
      getId: 'getVendor',
      noun: 'vendor',
      path: '/vendors',
      table: 'vendors',
      item: Vendor,
      errors: LIST_ERRORS,
      scope: 'products.read',
      summary: 'List vendors',
      answer: 'A page of vendors.',
    },
    {
      operationId: 'listTags',
      getId: 'getTag',
      noun: 'tag',
      path: '/tags',
      table: 'tags',
      item: Tag,
      errors: LIST_ERRORS,
      scope: 'products.read',
      summary: 'List tags',
      answer: 'A page of tags.',
    },
  ] as const;
  for (const r of named) {
    listRoute(
      app,
      r.path,
      {
        config: { scope: r.scope },
        schema: {
          operationId: r.operationId,
          tags: ['Reference data'],
          summary: r.summary,
          querystring: ListQuery,
          response: { 200: Many(r.item, r.answer), ...problems(...r.errors) },
        },
      },
      (req, page, query) => listNamed(ctxOf(req), r.table, page, query),
    );
    getById(
      app,
      { path: r.path, scope: r.scope, tag: 'Reference data', item: r.item },
      {
        operationId: r.getId,
        summary: `Get a ${r.noun}`,
        ...(r.table === 'locations' && { description: "A location outside a restricted key's locations is 404, as an unknown one." }),
        answer: `The ${r.noun}.`,
      },
      (ctx, id) => getNamed(ctx, r.table, id),
    );
  }

  listRoute(
    app,
    '/media-assets',
    {
      config: { scope: 'products.read' },
      schema: {
        operationId: 'listMediaAssets',
        tags: ['Reference data'],
        summary: 'List media assets (native and connected)',
        querystring: ListQuery,
        response: { 200: Many(MediaAsset, 'A page of media assets.'), ...problems(...LIST_ERRORS) },
      },
    },
    (req, page, query) => listMediaAssets(ctxOf(req), page, query),
  );
  getById(
    app,
    { path: '/media-assets', scope: 'products.read', tag: 'Reference data', item: MediaAsset },
    { operationId: 'getMediaAsset', summary: 'Get a media asset', answer: 'The media asset.' },
    getMediaAsset,
  );
};

export default reference;
