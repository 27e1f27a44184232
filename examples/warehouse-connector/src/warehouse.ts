// The warehouse side of the connector: what a WMS must offer. Replace FileWarehouse with calls to
// your WMS; the connector needs nothing else from it.
import fs from 'node:fs';
import path from 'node:path';
import type { LineToShip, Tracking } from './store.ts';

export interface ShipRequest {
  order_id: string;
  order_number: number;
  fulfillment_id: string;
  items: LineToShip[];
}

/** A stock change the warehouse made (a receipt, a count correction, damage), pushed once. */
export interface StockMovement {
  /** Unique and stable: it becomes the adjustment's Idempotency-Key. */
  id: string;
  sku: string;
  fulfillment_location_id: string;
  /** Signed change of on_hand. */
  delta: number;
  reason: string;
}

export interface Warehouse {
  /**
   * Hands a fulfillment to the warehouse and returns its tracking. Must answer the same tracking
   * when asked again for the same fulfillment_id (the connector asks again after a crash).
   */
  ship(request: ShipRequest): Promise<Tracking>;
  /** Every stock movement so far, oldest first; the connector pushes those it has not pushed. */
  stockMovements(): Promise<StockMovement[]>;
}

/**
 * A stand-in WMS on files: shipments are appended to `shipments.jsonl` (one per fulfillment;
 * tracking numbers `WH-<order number>`), stock movements are read from `stock-movements.jsonl`
 * (one JSON StockMovement per line, appended by whoever counts the shelves).
 */
export class FileWarehouse implements Warehouse {
  private readonly dir: string;
  constructor(dir: string) {
    this.dir = dir;
    fs.mkdirSync(dir, { recursive: true });
  }

  async ship(request: ShipRequest): Promise<Tracking> {
    const file = path.join(this.dir, 'shipments.jsonl');
    const tracking: Tracking = {
      tracking_number: `WH-${request.order_number}`,
      tracking_url: `https://tracking.example.com/WH-${request.order_number}`,
      carrier_name: 'Example Post',
      service_level: 'standard',
    };
    const known = readLines(file).some(
      (line) => typeof line === 'object' && line !== null && 'fulfillment_id' in line && line.fulfillment_id === request.fulfillment_id,
    );
    if (!known) fs.appendFileSync(file, JSON.stringify({ ...request, ...tracking }) + '\n');
    return tracking;
  }

  async stockMovements(): Promise<StockMovement[]> {
    return readLines(path.join(this.dir, 'stock-movements.jsonl')).filter(isMovement);
  }
}

function readLines(file: string): unknown[] {
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l): unknown => JSON.parse(l));
}

export function isMovement(v: unknown): v is StockMovement {
  if (typeof v !== 'object' || v === null) return false;
  return (
    'id' in v &&
    typeof v.id === 'string' &&
    'sku' in v &&
    typeof v.sku === 'string' &&
    'fulfillment_location_id' in v &&
    typeof v.fulfillment_location_id === 'string' &&
    'delta' in v &&
    typeof v.delta === 'number' &&
    Number.isInteger(v.delta) &&
    v.delta !== 0 &&
    'reason' in v &&
    typeof v.reason === 'string'
  );
}
