// Schemas of the inventory routes: the row as the API shows it, the list's filters and the
// adjustment batch; the service and the presenter take their Static<> types.
import { Type, type Static } from 'typebox';
import { PageQueryFields } from '../../http/paging.ts';
import { Nullable, Timestamp, Uuid, component } from '../../http/schemas.ts';

const strict = { additionalProperties: false } as const;

export const InventoryRowSchema = component(
  'InventoryRow',
  Type.Object({
    id: Uuid(),
    variant_id: Uuid(),
    product_id: Uuid(),
    sku: Nullable(Type.String()),
    fulfillment_location_id: Uuid(),
    on_hand: Type.Integer({ description: 'Units at the location, -1,000,000,000..1,000,000,000; below 0 after stock that was not there was fulfilled.' }),
    committed: Type.Integer({ description: 'Held by open orders, not yet fulfilled; at most 1,000,000,000.' }),
    available: Type.Integer({ description: 'on_hand - committed; negative when open orders hold more than is on hand.' }),
    updated_at: Timestamp(),
  }),
);
export type InventoryRow = Static<typeof InventoryRowSchema>;

export const InventoryListQuery = Type.Object(
  {
    variant_id: Type.Optional(Uuid('Only rows of this variant.')),
    sku: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'Only rows of variants with this SKU.' })),
    location_id: Type.Optional(Uuid("Only rows at this fulfillment location (must be one of the key's locations).")),
    ...PageQueryFields,
  },
  strict,
);
export type InventoryFilters = Static<typeof InventoryListQuery>;

// "Each row names variant_id or sku" is stated in the row's description and checked by the service,
// which answers with its own field error beside the other rows' errors. It is not published as a
// JSON Schema combinator: of four audited client generators, two turned the row into `unknown`
// (a union of two `required`-only branches) and then accepted any value (docs/decisions.md).
export const AdjustmentRow = component(
  'InventoryAdjustment',
  Type.Object(
    {
      variant_id: Type.Optional(Uuid('The variant; or give sku.')),
      sku: Type.Optional(
        Type.String({ minLength: 1, maxLength: 255, description: "Resolved to the merchant's variant with this SKU when variant_id is absent." }),
      ),
      fulfillment_location_id: Uuid(),
      adjustment: Type.Integer({
        minimum: -1_000_000,
        maximum: 1_000_000,
        description:
          'Signed change of on_hand; not 0. A row may not make on_hand negative (negative_on_hand; stock received while it is below 0 is taken) nor raise it above 1,000,000,000 (out_of_range).',
      }),
      reason: Type.Optional(Type.String({ maxLength: 500 })),
    },
    { ...strict, description: "Give `variant_id` or `sku` (with both, the SKU must be the variant's): 422 `required` at `variant_id` otherwise." },
  ),
);
export type Adjustment = Static<typeof AdjustmentRow>;

export const AdjustmentBody = Type.Object({ adjustments: Type.Array(AdjustmentRow, { minItems: 1, maxItems: 100 }) }, strict);
