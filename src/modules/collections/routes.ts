// /collections: manual (native) and connected (manual or smart) collections.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { catalogRoutes } from '../catalog/routes.ts';
import { Collection } from '../catalog/schemas.ts';
import { CollectionCreate, CollectionPatch } from './schemas.ts';
import { createCollection, getCollection, listCollections, updateCollection } from './service.ts';

const routes: FastifyPluginAsyncTypebox = async (app) => {
  catalogRoutes(app, {
    noun: 'collection',
    schema: Collection,
    submits: true,
    get: getCollection,
    page: listCollections,
    list: { summary: 'List collections' },
    create: {
      summary: 'Create a native manual collection',
      description: 'Smart collections cannot be created here.',
      body: CollectionCreate,
      run: createCollection,
    },
    update: {
      summary: 'Update a native collection',
      description:
        'title/description become pending until review; product_ids and tag_ids are full replacement sets. Connected collections answer 409 read_only_record.',
      body: CollectionPatch,
      run: updateCollection,
    },
  });
};

export default routes;
