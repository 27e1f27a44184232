// An in-memory WMS for the connector's tests: records every ship request.
import type { ShipRequest, StockMovement, Warehouse } from '../src/warehouse.ts';
import type { Tracking } from '../src/store.ts';

export class TestWarehouse implements Warehouse {
  shipCalls: ShipRequest[] = [];
  movements: StockMovement[] = [];
  async ship(request: ShipRequest): Promise<Tracking> {
    this.shipCalls.push(request);
    return {
      tracking_number: `WH-${request.order_number}`,
      tracking_url: `https://track.example.com/WH-${request.order_number}`,
      carrier_name: 'Test Post',
      service_level: 'ground',
    };
  }
  async stockMovements(): Promise<StockMovement[]> {
    return [...this.movements];
  }
}
