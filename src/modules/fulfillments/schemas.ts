// Request schemas of the fulfillments routes; the service takes their Static<> types.
import { Type, type Static } from 'typebox';
import { PageQueryFields } from '../../http/paging.ts';
import { component, Enum, NonBlank, Uuid, WebUrl } from '../../http/schemas.ts';
import { FULFILLMENT_STATUSES } from '../orders/records/schemas.ts';

const strict = { additionalProperties: false } as const;
const Label = NonBlank();

export const FulfillmentListQuery = Type.Object(
  {
    status: Type.Optional(Enum(FULFILLMENT_STATUSES, { description: 'Only fulfillments in this status.' })),
    ...PageQueryFields,
  },
  strict,
);
export type FulfillmentFilters = Static<typeof FulfillmentListQuery>;

export const FulfillmentCreateBody = Type.Object(
  {
    merchant_order_id: Uuid('The order (from the orders API).'),
    items: Type.Array(
      component(
        'NewFulfillmentItem',
        Type.Object(
          {
            merchant_order_item_id: Uuid('A line item id of that order.'),
            quantity: Type.Integer({ minimum: 1, maximum: 1_000_000 }),
          },
          strict,
        ),
      ),
      { minItems: 1, maxItems: 250 },
    ),
    carrier_name: Type.Optional(Label),
    service_level: Type.Optional(Label),
  },
  strict,
);
export type FulfillmentCreate = Static<typeof FulfillmentCreateBody>;

export const TrackingBody = Type.Object(
  {
    tracking_number: NonBlank(),
    tracking_url: Type.Optional(WebUrl('Public http(s) tracking page.')),
    carrier_name: Type.Optional(Label),
    service_level: Type.Optional(Label),
  },
  strict,
);
export type TrackingInput = Static<typeof TrackingBody>;
