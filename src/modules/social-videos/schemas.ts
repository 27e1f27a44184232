// Request bodies of /social-videos (the service's input types are derived from them with Static<>).
import { Type, type Static } from 'typebox';
import { Enum, Nullable, serviceChecked, Uuid } from '../../http/schemas.ts';
import { Description, IdList, Title } from '../catalog/schemas.ts';

const strict = { additionalProperties: false } as const;
const fields = {
  description: Type.Optional(Nullable(Description)),
  status: Type.Optional(Enum(['draft', 'published'], { description: 'Default draft' })),
  video_url: Type.Optional(
    Nullable(
      Type.String({
        format: 'uri',
        pattern: '^[Hh][Tt][Tt][Pp][Ss]://[^/?#:@\\s]',
        maxLength: 2048,
        description: 'https URL; exactly one of video_url and video_asset_id',
      }),
    ),
  ),
  video_asset_id: Type.Optional(Nullable(Uuid('A video media asset of this merchant'))),
  thumbnail_asset_id: Type.Optional(Nullable(Uuid('A media asset of this merchant'))),
  product_ids: Type.Optional(IdList('Product')),
  collection_ids: Type.Optional(IdList('Collection')),
};

/**
 * Exactly one of `video_url` / `video_asset_id` given as a string (null counts as absent; both given
 * match both branches, which oneOf refuses), for the OpenAPI document.
 * The service checks the same rule (oneSource) and answers 422 `one_of` at /video_url: letting the
 * validator enforce it would answer `required` errors per branch instead, so it is documented only.
 */
const oneVideoSource = [
  { required: ['video_url'], properties: { video_url: { type: 'string', maxLength: 2048 } } },
  { required: ['video_asset_id'], properties: { video_asset_id: { type: 'string', format: 'uuid' } } },
];

export const VideoCreate = Type.Object({ title: Title, ...fields }, { ...strict, ...serviceChecked({ oneOf: oneVideoSource }) });
export const VideoPatch = Type.Object({ title: Type.Optional(Title), ...fields }, strict);

export type VideoCreate = Static<typeof VideoCreate>;
export type VideoPatch = Static<typeof VideoPatch>;
