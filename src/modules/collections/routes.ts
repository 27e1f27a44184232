// /collections: manual (native) and connected (manual or smart) collections.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ctxOf, requireScope } from '../../http/context.ts';
import { listRoute } from '../../http/paging.ts';
import { IdParams, Many, One, CREATE_ERRORS, GET_ERRORS, LIST_ERRORS, UPDATE_ERRORS, problems } from '../../http/schemas.ts';
import { Collection, ListQuery } from '../catalog/schemas.ts';
import { CollectionCreate, CollectionPatch } from './schemas.ts';
import { createCollection, getCollection, listCollections, updateCollection } from './service.ts';

const routes: FastifyPluginAsyncTypebox = async (app) => {
  listRoute(
    app,
    '/collections',
    { config: { scope: 'collections.read' }, schema: { operationId: 'listCollections', tags: ['Collections'], summary: 'List collections', querystring: ListQuery, response: { 200: Many(Collection, 'A page of collections.'), ...problems(...LIST_ERRORS) } } },
    (req, page, query) => listCollections(ctxOf(req), page, query),
  );
  app.get(
    '/collections/:id',
    { config: { scope: 'collections.read' }, schema: { operationId: 'getCollection', tags: ['Collections'], summary: 'Get a collection', params: IdParams, response: { 200: One(Collection, 'The collection.'), ...problems(...GET_ERRORS) } } },
    async (req) => ({ data: await getCollection(ctxOf(req), req.params.id), request_id: req.id }),
  );
  app.post(
    '/collections',
    { config: { scope: 'collections.write' }, schema: { operationId: 'createCollection', tags: ['Collections'], summary: 'Create a native manual collection', description: 'Smart collections cannot be created here.', body: CollectionCreate, response: { 201: One(Collection, 'The collection created.'), ...problems(...CREATE_ERRORS) } } },
    async (req, reply) => {
      if (req.body.submit) requireScope(req, 'collections.submit');
      const c = await createCollection(ctxOf(req), req.body);
      reply.code(201).header('Location', `${app.prefix}/collections/${c.id}`);
      return { data: c, request_id: req.id };
    },
  );
  app.patch(
    '/collections/:id',
    {
      config: { scope: 'collections.write' },
      schema: { operationId: 'updateCollection', tags: ['Collections'], summary: 'Update a native collection', description: 'title/description become pending until review; product_ids and tag_ids are full replacement sets. Connected collections answer 409 read_only_record.', params: IdParams, body: CollectionPatch, response: { 200: One(Collection, 'The collection after the change.'), ...problems(...UPDATE_ERRORS) } },
    },
    async (req) => {
      if (req.body.submit) requireScope(req, 'collections.submit');
      return { data: await updateCollection(ctxOf(req), req.params.id, req.body), request_id: req.id };
    },
  );
};

export default routes;
