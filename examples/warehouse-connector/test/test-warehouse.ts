// An in-memory WMS for the connector's tests: records every ship request.
import type { ShipRequest, StockMovement, Warehouse } from '../src/warehouse.ts';
import type { Tracking } from '../src/store.ts';

export class TestWarehouse implements Warehouse {
  shipCalls: ShipRequest[] = [];
  movements: StockMovement[] = [];
  /** Its tracking numbers are `<prefix>-<order number>`: another warehouse answers other ones. */
  readonly prefix: string;
  constructor(prefix = 'WH') {
    this.prefix = prefix;
  }
  async ship(request: ShipRequest): Promise<Tracking> {
    this.shipCalls.push(request);
    return this.trackingOf(request.order_number);
  }
  /** The tracking it answers for an order. */
  trackingOf(orderNumber: number): Tracking {
    return {
      tracking_number: `${this.prefix}-${orderNumber}`,
      tracking_url: `https://track.example.com/${this.prefix}-${orderNumber}`,
      carrier_name: 'Test Post',
      service_level: 'ground',
    };
  }
  async stockMovements(): Promise<StockMovement[]> {
    return [...this.movements];
  }
}
