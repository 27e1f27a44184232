// The body of the operator's connected sync (its service's input type is derived from it).
import { Type, type Static, type TProperties } from 'typebox';
import { Nullable, Uuid, WebUrl } from '../../http/schemas.ts';
import { Description, VariantFields } from '../catalog/schemas.ts';

const strict = { additionalProperties: false } as const;
const ExternalId = Type.String({ minLength: 1, maxLength: 255 });
/** A title as the source has it (native titles may not be blank; a source's are taken as sent). */
const Title = Type.String({ minLength: 1, maxLength: 255 });
const ExternalIds = Type.Array(ExternalId, { maxItems: 1000 });
const TagIds = Type.Array(Uuid(), { maxItems: 250, uniqueItems: true });

/** Up to 500 synced records of one kind: external id, title, description and the kind's fields. */
const records = <P extends TProperties>(fields: P) =>
  Type.Optional(
    Type.Array(Type.Object({ external_id: ExternalId, title: Title, description: Type.Optional(Nullable(Description)), ...fields }, strict), { maxItems: 500 }),
  );

export const SyncBody = Type.Object(
  {
    source_name: Type.String({ minLength: 1, maxLength: 100 }),
    media_assets: Type.Optional(
      Type.Array(
        Type.Object(
          {
            external_id: ExternalId,
            url: WebUrl(),
            kind: Type.Union([Type.Literal('image'), Type.Literal('video')]),
            alt: Type.Optional(Nullable(Type.String({ maxLength: 500 }))),
          },
          strict,
        ),
        { maxItems: 1000 },
      ),
    ),
    products: records({
      handle: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
      status: Type.Optional(Type.Union([Type.Literal('draft'), Type.Literal('active'), Type.Literal('archived')])),
      vendor_id: Type.Optional(Nullable(Uuid())),
      tag_ids: Type.Optional(TagIds),
      media_external_ids: Type.Optional(ExternalIds),
      variants: Type.Optional(
        Type.Array(
          Type.Object(
            { external_id: ExternalId, ...VariantFields, media_asset_id: Type.Optional(Type.Null()), media_external_id: Type.Optional(Nullable(ExternalId)) },
            strict,
          ),
          { maxItems: 100 },
        ),
      ),
    }),
    collections: records({
      kind: Type.Optional(Type.Union([Type.Literal('manual'), Type.Literal('smart')])),
      rules: Type.Optional(Type.Unknown()),
      product_external_ids: Type.Optional(ExternalIds),
      tag_ids: Type.Optional(TagIds),
      image_external_id: Type.Optional(Nullable(ExternalId)),
    }),
    social_videos: records({
      status: Type.Optional(Type.Union([Type.Literal('draft'), Type.Literal('published')])),
      video_url: Type.Optional(Nullable(Type.String({ format: 'uri', pattern: '^https://', maxLength: 2048 }))),
      video_external_id: Type.Optional(Nullable(ExternalId)),
      thumbnail_external_id: Type.Optional(Nullable(ExternalId)),
      product_external_ids: Type.Optional(ExternalIds),
      collection_external_ids: Type.Optional(ExternalIds),
    }),
  },
  strict,
);

export type SyncInput = Static<typeof SyncBody>;
