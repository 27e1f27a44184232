// /products: native and connected products with variants, media and inventory.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ctxOf, requireScope } from '../../http/context.ts';
import { PageQuery, pageRequest } from '../../http/paging.ts';
import { IdParams, Many, Nullable, One, CREATE_ERRORS, GET_ERRORS, LIST_ERRORS, UPDATE_ERRORS, Uuid, problems } from '../../http/schemas.ts';
import { Description, IdList, Product, Title, VariantCreate, VariantPatch } from '../catalog/schemas.ts';
import { createProduct, getProduct, listProducts, updateProduct } from './service.ts';

const strict = { additionalProperties: false } as const;
const ListQuery = Type.Object({ limit: Type.Optional(PageQuery.limit), cursor: Type.Optional(PageQuery.cursor), updated_after: Type.Optional(PageQuery.updated_after) }, strict);

const ProductCreate = Type.Object(
  {
    title: Title,
    description: Type.Optional(Nullable(Description)),
    handle: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'Preferred handle; made URL-safe and unique (-2, -3…)' })),
    vendor_id: Type.Optional(Nullable(Uuid('A vendor of this merchant'))),
    primary_image_asset_id: Type.Optional(Nullable(Uuid('A media asset of this merchant'))),
    gallery_asset_ids: Type.Optional(IdList('Media asset', 50)),
    tag_ids: Type.Optional(IdList('Tag')),
    variants: Type.Optional(Type.Array(VariantCreate, { maxItems: 100, description: 'Omitted or empty: one default variant (option1 "Default", price 0)' })),
    submit: Type.Optional(Type.Boolean({ description: 'Submit for review now; needs products.submit' })),
  },
  strict,
);

const ProductPatch = Type.Object(
  {
    title: Type.Optional(Title),
    description: Type.Optional(Nullable(Description)),
    variants: Type.Optional(Type.Array(VariantPatch, { maxItems: 100, description: 'The full variant set to keep: rows with id update, rows without id are created, unlisted variants are removed' })),
    tag_ids: Type.Optional(IdList('Tag')),
    submit: Type.Optional(Type.Boolean({ description: 'Submit for review; needs products.submit' })),
  },
  strict,
);

const routes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/products',
    { config: { scope: 'products.read' }, schema: { operationId: 'listProducts', tags: ['Products'], summary: 'List products', description: 'Native and connected products with variants, media and inventory (for the key\'s locations), ordered by (updated_at, id).', querystring: ListQuery, response: { 200: Many(Product, 'A page of products.'), ...problems(...LIST_ERRORS) } } },
    async (req) => {
      const { items, meta } = await listProducts(ctxOf(req), pageRequest(app.secret, '/products', req.query), req.query);
      return { data: items, request_id: req.id, meta };
    },
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
      reply.code(201).header('Location', `/api/integrations/v1/products/${product.id}`);
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
