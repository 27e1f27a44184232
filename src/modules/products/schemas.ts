// Request bodies of /products (the service's input types are derived from them with Static<>).
import { Type, type Static } from 'typebox';
import { Nullable, Uuid } from '../../http/schemas.ts';
import { Description, IdList, Title, VariantCreate, VariantPatch } from '../catalog/schemas.ts';

const strict = { additionalProperties: false } as const;

export const ProductCreate = Type.Object(
  {
    title: Title,
    description: Type.Optional(Nullable(Description)),
    handle: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 255,
        description: 'Preferred handle; made URL-safe (lower-case letters, digits and hyphens, cut to 200 characters) and unique (-2, -3… added after the cut)',
      }),
    ),
    vendor_id: Type.Optional(Nullable(Uuid('A vendor of this merchant'))),
    primary_image_asset_id: Type.Optional(Nullable(Uuid('A media asset of this merchant'))),
    gallery_asset_ids: Type.Optional(IdList('Media asset', 50)),
    tag_ids: Type.Optional(IdList('Tag')),
    variants: Type.Optional(Type.Array(VariantCreate, { maxItems: 100, description: 'Omitted or empty: one default variant (option1 "Default", price 0)' })),
    submit: Type.Optional(Type.Boolean({ description: 'Submit for review now; needs products.submit' })),
  },
  strict,
);

export const ProductPatch = Type.Object(
  {
    title: Type.Optional(Title),
    description: Type.Optional(Nullable(Description)),
    variants: Type.Optional(
      Type.Array(VariantPatch, {
        maxItems: 100,
        description: 'The full variant set to keep: rows with id update, rows without id are created, unlisted variants are removed',
      }),
    ),
    tag_ids: Type.Optional(IdList('Tag')),
    submit: Type.Optional(Type.Boolean({ description: 'Submit for review; needs products.submit' })),
  },
  strict,
);

export type ProductCreate = Static<typeof ProductCreate>;
export type ProductPatch = Static<typeof ProductPatch>;
/** A variant row as the API takes it; connected sync adds the external id it matches by. */
export type VariantInput = Static<typeof VariantPatch> & { external_id?: string };
