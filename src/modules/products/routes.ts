// /products: native and connected products with variants, media and inventory.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ctxOf, requireScope } from '../../http/context.ts';
import { listRoute } from '../../http/paging.ts';
import { IdParams, Many, One, CREATE_ERRORS, GET_ERRORS, LIST_ERRORS, UPDATE_ERRORS, problems } from '../../http/schemas.ts';
import { ListQuery, Product } from '../catalog/schemas.ts';
import { ProductCreate, ProductPatch } from './schemas.ts';
import { createProduct, getProduct, listProducts, updateProduct } from './service.ts';

const routes: FastifyPluginAsyncTypebox = async (app) => {
  listRoute(
    app,
    '/products',
    {
      config: { scope: 'products.read' },
      schema: { operationId: 'listProducts', tags: ['Products'], summary: 'List products', description: 'Native and connected products with variants, media and inventory (for the key\'s locations), ordered by (updated_at, id).', querystring: ListQuery, response: { 200: Many(Product, 'A page of products.'), ...problems(...LIST_ERRORS) } },
    },
    (req, page, query) => listProducts(ctxOf(req), page, query),
  );

  app.get(
    '/products/:id',
    { config: { scope: 'products.read' }, schema: { operationId: 'getProduct', tags: ['Products'], summary: 'Get a product', params: IdParams, response: { 200: One(Product, 'The product.'), ...problems(...GET_ERRORS) } } },
    async (req) => ({ data: await getProduct(ctxOf(req), req.params.id), request_id: req.id }),
  );

  app.post(
    '/products',
    {
      config: { scope: 'products.write' },
      schema: { operationId: 'createProduct', tags: ['Products'], summary: 'Create a native product', description: 'Created as `draft`. `submit: true` (needs products.submit) sends it to review.', body: ProductCreate, response: { 201: One(Product, 'The product created.'), ...problems(...CREATE_ERRORS) } },
    },
    async (req, reply) => {
      if (req.body.submit) requireScope(req, 'products.submit');
      const product = await createProduct(ctxOf(req), req.body);
      reply.code(201).header('Location', `${app.prefix}/products/${product.id}`);
      return { data: product, request_id: req.id };
    },
  );

  app.patch(
    '/products/:id',
    {
      config: { scope: 'products.write' },
      schema: {
        operationId: 'updateProduct',
        tags: ['Products'],
        summary: 'Update a native product',
        description: 'title/description become pending values until review approves them; variants and tag_ids apply at once as full replacement sets. Connected products answer 409 read_only_record.',
        params: IdParams,
        body: ProductPatch,
        response: { 200: One(Product, 'The product after the change.'), ...problems(...UPDATE_ERRORS) },
      },
    },
    async (req) => {
      if (req.body.submit) requireScope(req, 'products.submit');
      return { data: await updateProduct(ctxOf(req), req.params.id, req.body), request_id: req.id };
    },
  );
};

export default routes;
