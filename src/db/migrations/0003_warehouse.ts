// Schema changes of the warehouse work: indexes for the location-restricted lists and lookups.
export const statements: string[] = [
  `create index orders_status on orders (merchant_id, status, updated_at, id)`,
  `create index fulfillments_location on fulfillments (merchant_id, fulfillment_location_id, updated_at, id)`,
  `create index fulfillment_items_line on fulfillment_items (line_item_id)`,
  `create index inventory_levels_location on inventory_levels (merchant_id, location_id, updated_at, id)`,
  `create index inventory_levels_variant on inventory_levels (merchant_id, variant_id)`,
  `create index inventory_ledger_reference on inventory_ledger (merchant_id, reference_id)`,
];
