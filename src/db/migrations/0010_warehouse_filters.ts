// Every warehouse list filter is a bounded index scan (issue #14): GET /fulfillments?status= reads
// (merchant_id, status) in (updated_at, id) order like GET /orders?status= does with orders_status.
// (GET /inventory?sku= needs no new index: it filters variants by (merchant_id, sku), variants_sku.)
export const statements: string[] = [`create index fulfillments_status on fulfillments (merchant_id, status, updated_at, id)`];
