// Statements built and compiled once per shape, then run with each call's values. Kysely builds a
// statement as a tree of operation nodes and compiles the tree to text on every run; for the reads
// every integrator polls (a list page, a record by id) that was the largest part of the process's
// own CPU per request after the network writes (profile of GET /orders/:id under load: Kysely 8.5 %,
// hashing the fresh text to find its prepared-statement name another 2.6 %). A statement made here
// is built on its first run of a shape with placeholders in place of its values; the compiled text
// (one string, so its prepared-statement name is found at once) is kept, and later runs only put
// their values where the placeholders were.
//
// The rule for `build`: the SQL it writes may depend only on the SHAPE of its values: which are
// null or undefined, the booleans, the length of each array, and the Inlined numbers (written into
// the text, one shape per value: only for a value from a small fixed set). Every other value must
// reach the statement unchanged as a parameter (`where(column, '=', v.x)`, `${v.x}` in sql``),
// never be computed with (`v.limit + 1`, `new Date(v.at)`: give the finished value instead),
// inlined (sql.lit, sql.raw) or branched on. Breaking it is caught where it can be: a placeholder computed
// with or inlined into the text throws on the first run.
import type { CompiledQuery, Compilable } from 'kysely';
import type { Database } from './database.ts';

/**
 * A number the statement's text is written with (`sql.lit(v.x.value)`), so each value is a shape of
 * its own: for a value the planner must see, from a small fixed set (paging.ts's row buckets).
 */
export class Inlined {
  readonly value: number;
  constructor(value: number) {
    if (!Number.isSafeInteger(value)) throw new Error(`only an integer is written into a statement's text, not ${value}`);
    this.value = value;
  }
}

/** A value a statement binds: a scalar (placeholder), a boolean or Inlined (part of the shape) or an array of scalars. */
type Bindable = string | number | bigint | Date | boolean | Inlined | null | undefined | readonly (string | number)[];
type Values = Record<string, Bindable>;

/** Shapes kept per statement; a further shape is compiled on each run instead (still correct). */
const MAX_SHAPES = 64;
const MARK = '\u0000';

interface Shaped {
  compiled: CompiledQuery;
  /** Per parameter: [key, array index or -1] of the value it takes, or null for a constant. */
  slots: ([string, number] | null)[];
}

function shapeOf(v: Values): string {
  let shape = '';
  for (const key in v) {
    const x = v[key];
    shape += `${key}:${x === undefined ? 'u' : x === null ? 'n' : typeof x === 'boolean' ? String(x) : x instanceof Inlined ? `=${x.value}` : Array.isArray(x) ? x.length : '*'};`;
  }
  return shape;
}

/** `v` with a placeholder for every value bound as a parameter, and where each placeholder stands. */
function placeholders(v: Values): { values: Values; stands: Map<string, [string, number]> } {
  const values: Values = {};
  const stands = new Map<string, [string, number]>();
  const mark = (key: string, index: number) => {
    const text = `${MARK}${key}${MARK}${index}`;
    stands.set(text, [key, index]);
    return text;
  };
  for (const key in v) {
    const x = v[key];
    if (x === undefined || x === null || typeof x === 'boolean' || x instanceof Inlined) values[key] = x;
    else if (Array.isArray(x)) values[key] = x.map((_, i) => mark(key, i));
    else values[key] = mark(key, -1);
  }
  return { values, stands };
}

function compileShape(compiled: CompiledQuery, stands: Map<string, [string, number]>): Shaped {
  if (compiled.sql.includes(MARK)) throw new Error(`a statement's value was written into its text (sql.lit or sql.raw?): ${compiled.sql}`);
  const slots = compiled.parameters.map((p) => {
    if (typeof p !== 'string' || !p.includes(MARK)) return null;
    const slot = stands.get(p);
    if (!slot) throw new Error(`a statement computed with a value instead of binding it: ${JSON.stringify(p)}`);
    return slot;
  });
  return { compiled, slots };
}

/**
 * A statement over `build`'s query, compiled once per shape of its values and run on `db` (the pool
 * or a transaction) with `values`: one round trip, the rows as the query's type gives them.
 */
export function statement<V extends { [K in keyof V]: Bindable }, R>(build: (db: Database, v: V) => Compilable<R>): (db: Database, values: V) => Promise<R[]> {
  const shapes = new Map<string, Shaped>();
  return async (db, values) => {
    const shape = shapeOf(values as Values);
    let shaped = shapes.get(shape);
    if (shaped === undefined) {
      const { values: marked, stands } = placeholders(values as Values);
      shaped = compileShape(build(db, marked as V).compile(), stands);
      if (shapes.size < MAX_SHAPES) shapes.set(shape, shaped);
    }
    const { compiled, slots } = shaped;
    const parameters = slots.map((slot, i) => {
      if (slot === null) return compiled.parameters[i];
      const x = (values as Values)[slot[0]];
      return slot[1] === -1 ? x : (x as readonly unknown[])[slot[1]];
    });
    const { rows } = await db.executeQuery<R>({ ...compiled, parameters } as CompiledQuery<R>);
    return rows;
  };
}
