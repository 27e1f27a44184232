// The order and fulfillment records as the API shows them: shared by the orders and fulfillments
// routes, the operator API's intake and the presenters (their types are Static<> of these).
import { Type, type Static } from 'typebox';
import { Enum, Nullable, Timestamp, Uuid, component } from '../../../http/schemas.ts';

const Text = Nullable(Type.String());

export const CUSTOMER_FIELDS = ['name', 'email', 'phone'] as const;
export const ADDRESS_FIELDS = ['name', 'company', 'address1', 'address2', 'city', 'province', 'postal_code', 'country_code', 'phone'] as const;

/** An object of nullable text fields, all present in answers. */
const textFields = <K extends string>(names: readonly K[]) => Type.Object(Object.fromEntries(names.map((n) => [n, Text])) as Record<K, typeof Text>);

export const ORDER_STATUSES = ['open', 'closed', 'cancelled'] as const;
export const FULFILLMENT_STATUSES = ['pending', 'shipped', 'cancelled'] as const;

export const OrderStatus = component('OrderStatus', Enum(ORDER_STATUSES, { description: 'An order becomes closed when fully fulfilled.' }));
export const OrderFulfillmentStatus = component('OrderFulfillmentStatus', Enum(['unfulfilled', 'partially_fulfilled', 'fulfilled']));

export const OrderSchema = component(
  'Order',
  Type.Object({
    id: Uuid(),
    order_number: Type.Integer({ description: 'Per merchant, from 1001.' }),
    status: OrderStatus,
    fulfillment_status: OrderFulfillmentStatus,
    fulfillment_location_id: Uuid(),
    currency: Type.String({ description: 'ISO 4217 code.' }),
    total_price: Type.Number({ description: 'Sum of price × quantity over the line items.' }),
    customer: component('Customer', textFields(CUSTOMER_FIELDS)),
    shipping_address: component('ShippingAddress', textFields(ADDRESS_FIELDS)),
    line_items: Type.Array(
      component(
        'OrderLineItem',
        Type.Object({
          id: Uuid('The merchant_order_item_id to fulfil.'),
          product_id: Nullable(Uuid()),
          variant_id: Nullable(Uuid()),
          sku: Text,
          title: Type.String({ description: 'Product title at the time of the order.' }),
          variant_title: Text,
          quantity: Type.Integer(),
          fulfilled_quantity: Type.Integer({ description: 'In fulfillments that are not cancelled.' }),
          fulfillable_quantity: Type.Integer({ description: 'Still to fulfil; 0 unless the order is open.' }),
          price: Type.Number(),
        }),
      ),
    ),
    fulfillment_summary: component(
      'FulfillmentSummary',
      Type.Object({
        fulfilled_quantity: Type.Integer(),
        total_quantity: Type.Integer(),
        fulfillment_ids: Type.Array(Uuid(), { description: 'Every fulfillment of the order, cancelled ones included, oldest first.' }),
      }),
    ),
    created_at: Timestamp(),
    updated_at: Timestamp(),
  }),
);
export type Order = Static<typeof OrderSchema>;
export type OrderFulfillmentState = Static<typeof OrderFulfillmentStatus>;

export const FulfillmentStatus = component('FulfillmentStatus', Enum(FULFILLMENT_STATUSES, { description: 'Attaching tracking makes it shipped.' }));

export const FulfillmentSchema = component(
  'Fulfillment',
  Type.Object({
    id: Uuid(),
    merchant_order_id: Uuid(),
    fulfillment_location_id: Uuid(),
    status: FulfillmentStatus,
    carrier_name: Text,
    service_level: Text,
    tracking: Nullable(
      component(
        'Tracking',
        Type.Object({ tracking_number: Type.String(), tracking_url: Nullable(Type.String({ format: 'uri' })), carrier_name: Text, service_level: Text }),
      ),
    ),
    items: Type.Array(component('FulfillmentItem', Type.Object({ merchant_order_item_id: Uuid(), quantity: Type.Integer() }))),
    created_at: Timestamp(),
    updated_at: Timestamp(),
  }),
);
export type Fulfillment = Static<typeof FulfillmentSchema>;
