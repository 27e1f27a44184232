// Kysely table types, kept in step with migrations/. int8 and numeric come back as strings.
import type { ColumnType, Generated } from 'kysely';

type Id = Generated<string>;
type Stamp = ColumnType<Date, Date | string | undefined, Date | string>;
type NullableStamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
type Money = ColumnType<string, number | string, number | string>;
type NullableMoney = ColumnType<string | null, number | string | null | undefined, number | string | null>;
type Json<T = unknown> = ColumnType<T, string, string>;
type Source = 'native' | 'connected';
type ReviewStatus = 'not_submitted' | 'in_review' | 'approved' | 'rejected';

interface Stamped {
  created_at: Stamp;
  updated_at: Stamp;
}

export interface SettingsTable {
  key: string;
  value: string;
}

export interface MerchantsTable extends Stamped {
  id: Id;
  name: string;
  currency: Generated<string>;
  next_order_number: Generated<string>;
}

export interface PortalUsersTable extends Stamped {
  id: Id;
  merchant_id: string;
  email: string;
  password_hash: string;
}

export interface NamedTable extends Stamped {
  id: Id;
  merchant_id: string;
  name: string;
}

export interface MediaAssetsTable extends Stamped {
  id: Id;
  merchant_id: string;
  url: string;
  kind: 'image' | 'video';
  alt: string | null;
  source: Generated<Source>;
  source_name: string | null;
  external_id: string | null;
}

export interface ProductsTable extends Stamped {
  id: Id;
  merchant_id: string;
  source: Generated<Source>;
  source_name: string | null;
  external_id: string | null;
  title: string;
  description: string | null;
  handle: string;
  status: Generated<'draft' | 'active' | 'archived'>;
  review_status: Generated<ReviewStatus>;
  pending_title: string | null;
  pending_description: string | null;
  vendor_id: string | null;
  primary_image_asset_id: string | null;
}

export interface ProductGalleryTable {
  merchant_id: string;
  product_id: string;
  asset_id: string;
  position: number;
}
export interface ProductTagsTable {
  merchant_id: string;
  product_id: string;
  tag_id: string;
  position: Generated<number>;
}

export interface VariantsTable extends Stamped {
  id: Id;
  merchant_id: string;
  product_id: string;
  source: Generated<Source>;
  external_id: string | null;
  position: Generated<number>;
  sku: string | null;
  option1: string | null;
  option2: string | null;
  option3: string | null;
  price: Money;
  compare_at_price: NullableMoney;
  barcode: string | null;
  inventory_policy: Generated<'deny' | 'continue'>;
  media_asset_id: string | null;
  shipping_profile: string | null;
  requires_shipping: Generated<boolean>;
  weight: NullableMoney;
  weight_unit: Generated<'g' | 'kg' | 'lb' | 'oz'>;
}

export interface CollectionsTable extends Stamped {
  id: Id;
  merchant_id: string;
  source: Generated<Source>;
  source_name: string | null;
  external_id: string | null;
  kind: Generated<'manual' | 'smart'>;
  title: string;
  description: string | null;
  handle: string;
  review_status: Generated<ReviewStatus>;
  pending_title: string | null;
  pending_description: string | null;
  primary_image_asset_id: string | null;
  rules: Json | null;
}

export interface CollectionProductsTable {
  merchant_id: string;
  collection_id: string;
  product_id: string;
  position: Generated<number>;
}
export interface CollectionTagsTable {
  merchant_id: string;
  collection_id: string;
  tag_id: string;
  position: Generated<number>;
}

export interface SocialVideosTable extends Stamped {
  id: Id;
  merchant_id: string;
  source: Generated<Source>;
  source_name: string | null;
  external_id: string | null;
  title: string;
  description: string | null;
  status: Generated<'draft' | 'published'>;
  video_url: string | null;
  video_asset_id: string | null;
  thumbnail_asset_id: string | null;
}

export interface SocialVideoProductsTable {
  merchant_id: string;
  social_video_id: string;
  product_id: string;
  position: Generated<number>;
}
export interface SocialVideoCollectionsTable {
  merchant_id: string;
  social_video_id: string;
  collection_id: string;
  position: Generated<number>;
}

export interface OrdersTable extends Stamped {
  id: Id;
  merchant_id: string;
  order_number: string;
  status: Generated<'open' | 'closed' | 'cancelled'>;
  fulfillment_status: Generated<'unfulfilled' | 'partially_fulfilled' | 'fulfilled'>;
  fulfillment_location_id: string;
  currency: string;
  total_price: Money;
  customer: Json<Record<string, string | null> | null> | null;
  shipping_address: Json<Record<string, string | null> | null> | null;
  cancelled_at: NullableStamp;
}

export interface OrderLineItemsTable extends Stamped {
  id: Id;
  merchant_id: string;
  order_id: string;
  position: number;
  product_id: string | null;
  variant_id: string | null;
  sku: string | null;
  title: string;
  variant_title: string | null;
  quantity: number;
  fulfilled_quantity: Generated<number>;
  price: Money;
}

export interface FulfillmentsTable extends Stamped {
  id: Id;
  merchant_id: string;
  order_id: string;
  fulfillment_location_id: string;
  status: Generated<'pending' | 'shipped' | 'cancelled'>;
  carrier_name: string | null;
  service_level: string | null;
  tracking_number: string | null;
  tracking_url: string | null;
  tracking_carrier_name: string | null;
  tracking_service_level: string | null;
}

export interface FulfillmentItemsTable {
  merchant_id: string;
  fulfillment_id: string;
  line_item_id: string;
  position: Generated<number>;
  quantity: number;
}

export interface InventoryLevelsTable extends Stamped {
  id: Id;
  merchant_id: string;
  variant_id: string;
  location_id: string;
  on_hand: Generated<number>;
  committed: Generated<number>;
}

export interface InventoryLedgerTable {
  id: Id;
  merchant_id: string;
  variant_id: string;
  location_id: string;
  on_hand_delta: Generated<number>;
  committed_delta: Generated<number>;
  cause: string;
  reference_id: string | null;
  reason: string | null;
  api_key_id: string | null;
  created_at: Stamp;
}

export interface ApiKeysTable extends Stamped {
  id: Id;
  merchant_id: string;
  label: string;
  prefix: string;
  secret_hash: string;
  scopes: string[];
  location_ids: string[] | null;
  last_used_at: NullableStamp;
  revoked_at: NullableStamp;
}

export interface WebhookEndpointsTable extends Stamped {
  id: Id;
  merchant_id: string;
  url: string;
  description: string | null;
  events: string[];
  location_ids: string[] | null;
  status: Generated<'enabled' | 'disabled'>;
  signing_secret: string;
  previous_signing_secret: string | null;
  previous_secret_expires_at: NullableStamp;
  disabled_reason: 'gone' | 'manual' | null;
  disabled_at: NullableStamp;
}

export interface EventsTable {
  id: Id;
  merchant_id: string;
  type: string;
  location_id: string | null;
  payload: Json<Record<string, unknown>>;
  created_at: Stamp;
  /** The writing transaction (xid8, as a decimal string). */
  xid: Generated<string>;
  /** Feed order: (position_xid, seq); see src/events/position.ts. */
  position_xid: Generated<string>;
  seq: Generated<string>;
}

export interface WebhookDeliveriesTable extends Stamped {
  id: Id;
  merchant_id: string;
  endpoint_id: string;
  event_id: string;
  status: Generated<'pending' | 'delivered' | 'failed'>;
  attempts: Generated<number>;
  next_attempt_at: NullableStamp;
  locked_until: NullableStamp;
  last_status_code: number | null;
  /** The delivery a resend copied (null for the original). */
  resent_from: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface WebhookAttemptsTable {
  id: Id;
  merchant_id: string;
  delivery_id: string;
  attempt: number;
  status_code: number | null;
  duration_ms: number;
  response_excerpt: string | null;
  error: string | null;
  /** The exact request sent: headers (signature included) and raw body. */
  request_headers: Json<Record<string, string>> | null;
  request_body: string | null;
  created_at: Stamp;
}

export interface RequestLogTable {
  merchant_id: string;
  api_key_id: string;
  request_id: string;
  method: string;
  path: string;
  query: string | null;
  status: number;
  error_code: string | null;
  duration_ms: number;
  problem: Json<Record<string, unknown>> | null;
  created_at: Date;
}

export interface IdempotencyKeysTable {
  merchant_id: string;
  method: string;
  path: string;
  key: string;
  request_hash: string;
  status_code: number;
  body: Json;
  location: string | null;
  created_at: Stamp;
}

export interface PortalSessionsTable {
  id: string;
  merchant_id: string;
  user_id: string;
  csrf_token: string;
  created_at: Stamp;
  last_seen_at: Stamp;
  expires_at: Stamp;
}

export interface SchemaMigrationsTable {
  name: string;
  applied_at: Stamp;
}

export interface DB {
  settings: SettingsTable;
  schema_migrations: SchemaMigrationsTable;
  merchants: MerchantsTable;
  portal_users: PortalUsersTable;
  locations: NamedTable;
  vendors: NamedTable;
  tags: NamedTable;
  media_assets: MediaAssetsTable;
  products: ProductsTable;
  product_gallery: ProductGalleryTable;
  product_tags: ProductTagsTable;
  variants: VariantsTable;
  collections: CollectionsTable;
  collection_products: CollectionProductsTable;
  collection_tags: CollectionTagsTable;
  social_videos: SocialVideosTable;
  social_video_products: SocialVideoProductsTable;
  social_video_collections: SocialVideoCollectionsTable;
  orders: OrdersTable;
  order_line_items: OrderLineItemsTable;
  fulfillments: FulfillmentsTable;
  fulfillment_items: FulfillmentItemsTable;
  inventory_levels: InventoryLevelsTable;
  inventory_ledger: InventoryLedgerTable;
  api_keys: ApiKeysTable;
  webhook_endpoints: WebhookEndpointsTable;
  events: EventsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  idempotency_keys: IdempotencyKeysTable;
  portal_sessions: PortalSessionsTable;
  request_log: RequestLogTable;
}
