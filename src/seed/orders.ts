// Demo orders for a new database: open orders at both demo locations, placed through the same
// intake service as the operator API, one of them partially fulfilled and shipped with tracking.
import type { DemoContext } from './context.ts';
import { createOrder } from '../modules/orders/service.ts';
import { createFulfillment, attachTracking } from '../modules/fulfillments/service.ts';
import { adjustInventory } from '../modules/inventory/service.ts';

const CUSTOMERS = [
  {
    customer: { name: 'Grace Hopper', email: 'grace@example.com', phone: '+1 555 0100' },
    shipping_address: {
      name: 'Grace Hopper',
      address1: '200 Navy Yard Rd',
      city: 'Arlington',
      province: 'VA',
      postal_code: '22202',
      country_code: 'US',
      phone: '+1 555 0100',
    },
  },
  {
    customer: { name: 'Alan Turing', email: 'alan@example.com' },
    shipping_address: {
      name: 'Alan Turing',
      company: 'Bletchley Park',
      address1: 'Sherwood Dr',
      city: 'Milton Keynes',
      postal_code: 'MK3 6EB',
      country_code: 'GB',
    },
  },
  {
    customer: { name: 'Katherine Johnson', email: 'katherine@example.com' },
    shipping_address: { name: 'Katherine Johnson', address1: '1 NASA Dr', city: 'Hampton', province: 'VA', postal_code: '23666', country_code: 'US' },
  },
];

export async function seedOrders(demo: DemoContext): Promise<void> {
  const variants = Object.values(demo.variants);
  if (variants.length === 0 || demo.locations.length === 0) return; // no catalog to order from
  const { ctx } = demo;
  const [main, east] = [demo.locations[0].id, (demo.locations[1] ?? demo.locations[0]).id];
  // Spread over the catalog (a tee, a hoodie, a mug…) rather than three sizes of one product.
  const pick = (i: number) => variants[Math.floor((i * variants.length) / 3) % variants.length];

  // Enough stock for the demo orders at both locations (on top of whatever the catalog seeded).
  await adjustInventory(
    ctx,
    [...new Set([pick(0), pick(1), pick(2)])].flatMap((variant_id) => [
      { variant_id, fulfillment_location_id: main, adjustment: 40, reason: 'demo: opening stock' },
      { variant_id, fulfillment_location_id: east, adjustment: 25, reason: 'demo: opening stock' },
    ]),
  );

  await createOrder(ctx, {
    fulfillment_location_id: main,
    ...CUSTOMERS[0],
    line_items: [
      { variant_id: pick(0), quantity: 2 },
      { variant_id: pick(1), quantity: 1 },
    ],
  });
  await createOrder(ctx, { fulfillment_location_id: east, ...CUSTOMERS[1], line_items: [{ variant_id: pick(2), quantity: 3 }] });
  const partial = await createOrder(ctx, {
    fulfillment_location_id: main,
    ...CUSTOMERS[2],
    line_items: [
      { variant_id: pick(1), quantity: 2 },
      { variant_id: pick(2), quantity: 1 },
    ],
  });
  const shipment = await createFulfillment(ctx, {
    merchant_order_id: partial.id,
    items: [{ merchant_order_item_id: partial.line_items[0].id, quantity: 2 }],
    carrier_name: 'UPS',
    service_level: 'Ground',
  });
  await attachTracking(ctx, shipment.id, {
    tracking_number: '1Z999AA10123456784',
    tracking_url: 'https://www.ups.com/track?tracknum=1Z999AA10123456784',
    carrier_name: 'UPS',
    service_level: 'Ground',
  });
  await createOrder(ctx, { fulfillment_location_id: east, ...CUSTOMERS[0], line_items: [{ variant_id: pick(0), quantity: 1 }] });
}
