// Request bodies of /collections (the service's input types are derived from them with Static<>).
import { Type, type Static } from 'typebox';
import { Nullable, Uuid } from '../../http/schemas.ts';
import { Description, IdList, Title } from '../catalog/schemas.ts';

const strict = { additionalProperties: false } as const;

export const CollectionCreate = Type.Object(
  {
    title: Title,
    description: Type.Optional(Nullable(Description)),
    primary_image_asset_id: Type.Optional(Nullable(Uuid('A media asset of this merchant'))),
    product_ids: Type.Optional(IdList('Product', 1000)),
    tag_ids: Type.Optional(IdList('Tag')),
    submit: Type.Optional(Type.Boolean({ description: 'Submit for review now; needs collections.submit' })),
  },
  strict,
);
export const CollectionPatch = Type.Object(
  {
    title: Type.Optional(Title),
    description: Type.Optional(Nullable(Description)),
    product_ids: Type.Optional(IdList('Product', 1000)),
    tag_ids: Type.Optional(IdList('Tag')),
    submit: Type.Optional(Type.Boolean({ description: 'Submit for review; needs collections.submit' })),
  },
  strict,
);

export type CollectionCreate = Static<typeof CollectionCreate>;
export type CollectionPatch = Static<typeof CollectionPatch>;
