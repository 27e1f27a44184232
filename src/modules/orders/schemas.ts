// Request schemas of the orders module: the list's filters and the storefront intake body (the
// operator API registers intake; the service takes its Static<> type).
import { Type, type Static } from 'typebox';
import { PageQueryFields } from '../../http/paging.ts';
import { CountryCode, Email, Enum, Nullable, Uuid } from '../../http/schemas.ts';
import { ADDRESS_FIELDS, CUSTOMER_FIELDS, ORDER_STATUSES } from './records/schemas.ts';
import { MAX_MONEY, Money } from '../../http/money.ts';

const strict = { additionalProperties: false } as const;

export const OrderListQuery = Type.Object(
  {
    status: Type.Optional(Enum(ORDER_STATUSES, { description: 'Only orders in this status.' })),
    created_after: Type.Optional(Type.String({ format: 'date-time', description: 'Only orders created strictly after this instant.' })),
    ...PageQueryFields,
  },
  strict,
);
export type OrderFilters = Static<typeof OrderListQuery>;

const Field = Type.Optional(Type.Union([Type.String({ maxLength: 255 }), Type.Null()]));
const fields = <K extends string>(names: readonly K[]) => Type.Object(Object.fromEntries(names.map((n) => [n, Field])) as Record<K, typeof Field>, strict);

/**
 * The largest line price intake accepts: a variant's own bound, since a line without a price takes
 * its variant's (it was 99,999,999.99, below the price a line could take by default). The order
 * total is bounded separately, by its column.
 */
export const MAX_LINE_PRICE = MAX_MONEY;

export const OrderIntakeBody = Type.Object(
  {
    fulfillment_location_id: Uuid(),
    // The free-text fields as sent; the country and the email in the forms that orders are read in
    // (a country_code of "Germany" reached the 3PL's labels).
    customer: Type.Optional(Type.Object({ ...fields(CUSTOMER_FIELDS).properties, email: Type.Optional(Nullable(Email())) }, strict)),
    shipping_address: Type.Optional(Type.Object({ ...fields(ADDRESS_FIELDS).properties, country_code: Type.Optional(Nullable(CountryCode())) }, strict)),
    line_items: Type.Array(
      Type.Object(
        {
          variant_id: Uuid(),
          quantity: Type.Integer({ minimum: 1, maximum: 100_000 }),
          price: Type.Optional(Money("Line price in the merchant currency (default: the variant's price)", MAX_LINE_PRICE)),
        },
        strict,
      ),
      { minItems: 1, maxItems: 250 },
    ),
  },
  strict,
);
export type OrderIntake = Static<typeof OrderIntakeBody>;
