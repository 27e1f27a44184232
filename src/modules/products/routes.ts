// /products: native and connected products with variants, media and inventory.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { catalogRoutes } from '../catalog/routes.ts';
import { Product } from '../catalog/schemas.ts';
import { ProductCreate, ProductPatch } from './schemas.ts';
import { createProduct, getProduct, listProducts, updateProduct } from './service.ts';

const routes: FastifyPluginAsyncTypebox = async (app) => {
  catalogRoutes(app, {
    noun: 'product',
    schema: Product,
    submits: true,
    get: getProduct,
    page: listProducts,
    list: {
      summary: 'List products',
      description: "Native and connected products with variants, media and inventory (for the key's locations), ordered by (updated_at, id).",
    },
    create: {
      summary: 'Create a native product',
      description: 'Created as `draft`. `submit: true` (needs products.submit) sends it to review.',
      body: ProductCreate,
      run: createProduct,
    },
    update: {
      summary: 'Update a native product',
      description:
        'title/description become pending values until review approves them; variants and tag_ids apply at once as full replacement sets. Connected products answer 409 read_only_record.',
      body: ProductPatch,
      run: updateProduct,
    },
  });
};

export default routes;
