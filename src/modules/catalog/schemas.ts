// Response and request schemas of the catalog resources (the OpenAPI document is built from them).
import { Type } from 'typebox';
import { PageQuery } from '../../http/paging.ts';
import { Enum, NonBlank, Nullable, Timestamp, Uuid, component } from '../../http/schemas.ts';
import { Money } from '../../http/money.ts';

/** The query of every catalog and reference list: a page, optionally of rows updated after an instant. */
export const ListQuery = Type.Object(
  { limit: Type.Optional(PageQuery.limit), cursor: Type.Optional(PageQuery.cursor), updated_after: Type.Optional(PageQuery.updated_after) },
  { additionalProperties: false },
);

export const Source = component(
  'Source',
  Enum(['native', 'connected'], { description: 'native: written through this API; connected: synced from an external source, read-only' }),
);
export const ReviewStatus = component(
  'ReviewStatus',
  Enum(['not_submitted', 'in_review', 'approved', 'rejected'], {
    description: 'Review of native title/description changes: submit sets in_review; the operator approves or rejects.',
  }),
);
export const InventoryPolicy = component(
  'InventoryPolicy',
  Enum(['deny', 'continue'], {
    description: 'deny: orders may not exceed available stock; continue: available may go below zero. A new variant that names none is deny.',
  }),
);
export const WeightUnit = component('WeightUnit', Enum(['g', 'kg', 'lb', 'oz'], { description: 'The unit of `weight`. A new variant that names none is g.' }));
/** A native record's title: not blank (a connected source's titles are taken as sent: connected-sync/schemas.ts). */
export const Title = NonBlank();
export const Description = Type.String({ maxLength: 65535 });
export const IdList = (what: string, max = 250) =>
  Type.Array(Uuid(), { maxItems: max, uniqueItems: true, description: `${what} ids of this merchant (full set)` });
const Text = (max = 255) => Nullable(Type.String({ maxLength: max }));

export const VariantFields = {
  sku: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 255, description: "Unique among the merchant's native variants" }))),
  option1: Type.Optional(Text()),
  option2: Type.Optional(Text()),
  option3: Type.Optional(Text()),
  price: Type.Optional(Money('Price in the merchant currency; required on every new variant')),
  compare_at_price: Type.Optional(Nullable(Money('Compare-at price'))),
  barcode: Type.Optional(Text(64)),
  inventory_policy: Type.Optional(InventoryPolicy),
  media_asset_id: Type.Optional(Nullable(Uuid('A media asset of this merchant'))),
  shipping_profile: Type.Optional(Text(100)),
  requires_shipping: Type.Optional(Type.Boolean({ description: 'Default true' })),
  weight: Type.Optional(Nullable(Type.Number({ minimum: 0, maximum: 1000000, description: 'At most 3 decimals.' }))),
  weight_unit: Type.Optional(WeightUnit),
};

// Request rows are named components, so a generated client has a type to build them with
// (`NewVariant`, not `CreateProductRequest["variants"][number]`).
// A new product's variants each need a price: required in the schema, so that the document says so
// and a missing one is named with the body's other shape errors (it came only once they were fixed).
export const VariantCreate = component(
  'NewVariant',
  Type.Object({ ...VariantFields, price: Money('Price in the merchant currency') }, { additionalProperties: false }),
);
export const VariantPatch = component(
  'VariantUpdate',
  Type.Object({ id: Type.Optional(Uuid('An existing variant of this product; omit to create a new one')), ...VariantFields }, { additionalProperties: false }),
);

export const Inventory = component(
  'VariantInventory',
  Type.Object({
    fulfillment_location_id: Uuid(),
    on_hand: Type.Integer(),
    committed: Type.Integer(),
    available: Type.Integer({ description: 'on_hand - committed' }),
  }),
);

export const Variant = component(
  'Variant',
  Type.Object({
    id: Uuid(),
    external_id: Nullable(Type.String()),
    sku: Nullable(Type.String()),
    option1: Nullable(Type.String()),
    option2: Nullable(Type.String()),
    option3: Nullable(Type.String()),
    price: Type.Number(),
    compare_at_price: Nullable(Type.Number()),
    barcode: Nullable(Type.String()),
    inventory_policy: InventoryPolicy,
    media_asset_id: Nullable(Uuid()),
    shipping_profile: Nullable(Type.String()),
    requires_shipping: Type.Boolean(),
    weight: Nullable(Type.Number()),
    weight_unit: WeightUnit,
    inventory: Type.Array(Inventory, { description: "One entry per location with stock for this variant (only the key's locations)" }),
  }),
);

/** What every catalog record opens with: its id and where it comes from (a connected source's name and its id there). */
const Origin = { id: Uuid(), source: Source, source_name: Nullable(Type.String()), external_id: Nullable(Type.String()) };
/** The live title and description (a native product's or collection's changes wait in Review until approved). */
const Titled = { title: Type.String(), description: Nullable(Type.String()) };
/** The review of products and collections: the pending title/description go live only on approval. */
const Review = { review_status: ReviewStatus, pending_title: Nullable(Type.String()), pending_description: Nullable(Type.String()) };
const Stamps = { created_at: Timestamp(), updated_at: Timestamp() };

export const ProductMedia = component(
  'ProductMedia',
  Type.Object({
    id: Uuid('The media asset id.'),
    url: Nullable(Type.String({ format: 'uri' })),
    kind: Enum(['image', 'video']),
    position: Type.Integer({ description: '0 for the primary image, then the gallery in order.' }),
  }),
);

export const Product = component(
  'Product',
  Type.Object({
    ...Origin,
    ...Titled,
    handle: Type.String(),
    status: Enum(['draft', 'active', 'archived'], { description: 'Native products are created draft; a first approval makes them active.' }),
    ...Review,
    vendor_id: Nullable(Uuid()),
    primary_image_asset_id: Nullable(Uuid()),
    gallery_asset_ids: Type.Array(Uuid()),
    tag_ids: Type.Array(Uuid()),
    media: Type.Array(ProductMedia, { description: 'The primary image first, then the gallery.' }),
    variants: Type.Array(Variant),
    ...Stamps,
  }),
);

export const Collection = component(
  'Collection',
  Type.Object({
    ...Origin,
    kind: Enum(['manual', 'smart'], { description: 'Native collections are manual.' }),
    ...Titled,
    handle: Type.String(),
    ...Review,
    primary_image_asset_id: Nullable(Uuid()),
    product_ids: Type.Array(Uuid()),
    tag_ids: Type.Array(Uuid()),
    ...Stamps,
  }),
);

export const SocialVideo = component(
  'SocialVideo',
  Type.Object({
    ...Origin,
    ...Titled,
    status: Enum(['draft', 'published']),
    video_url: Nullable(Type.String({ format: 'uri' })),
    video_asset_id: Nullable(Uuid()),
    thumbnail_asset_id: Nullable(Uuid()),
    product_ids: Type.Array(Uuid()),
    collection_ids: Type.Array(Uuid()),
    ...Stamps,
  }),
);
