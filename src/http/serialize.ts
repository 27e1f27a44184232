// How values look on the wire: ISO-8601 UTC with milliseconds, money as numbers. The same rules in
// SQL for the records PostgreSQL builds as JSON text (json_build_object), which the read routes
// answer as they are: no parsing into rows and Dates, no presenting, no serialising again.
import type { FastifyReply } from 'fastify';
import { sql } from 'kysely';

export const iso = (d: Date) => d.toISOString();
export const isoOrNull = (d: Date | null) => (d ? d.toISOString() : null);
export const money = (v: string) => Number(v);
export const moneyOrNull = (v: string | null) => (v === null ? null : Number(v));

/** `iso` in SQL: the column's instant as ISO-8601 UTC with milliseconds (timestamptz(3) columns). */
export const isoSql = (column: string) => sql<string>`to_char(${sql.ref(column)} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
/** `money` in SQL: numeric as a JSON number with JavaScript's shortest form (12.50 → 12.5, as Number() gives). */
export const moneySql = (column: string) => sql<number>`${sql.ref(column)}::float8`;

/** A record's JSON text as PostgreSQL built it (the type says what it holds). */
export type JsonText<T> = string & { readonly __holds?: T };
/** The record itself, for code that needs the object (write answers, event payloads). */
export const parseJson = <T>(text: JsonText<T>): T => JSON.parse(text) as T;

type Meta = { limit: number; next_cursor: string | null };
const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/**
 * The answer `{ data, request_id, meta? }` every route gives. Data PostgreSQL built as JSON text (a
 * record, or a page of them) is put into the envelope as text and sent as it is: Fastify does not
 * serialise a string sent with a JSON content type again.
 */
export function respond<T>(
  reply: FastifyReply,
  requestId: string,
  data: T | JsonText<T>,
  meta?: Meta,
): FastifyReply | { data: T; request_id: string; meta?: Meta };
export function respond<T>(
  reply: FastifyReply,
  requestId: string,
  data: T[] | JsonText<T>[],
  meta?: Meta,
): FastifyReply | { data: T[]; request_id: string; meta?: Meta };
export function respond(reply: FastifyReply, requestId: string, data: unknown, meta?: Meta) {
  const text = typeof data === 'string' ? data : Array.isArray(data) && typeof data[0] === 'string' ? `[${data.join(',')}]` : null;
  if (text === null) return meta ? { data, request_id: requestId, meta } : { data, request_id: requestId };
  return reply.type(JSON_CONTENT_TYPE).send(`{"data":${text},"request_id":${JSON.stringify(requestId)}${meta ? `,"meta":${JSON.stringify(meta)}` : ''}}`);
}

/**
 * Canonical JSON: object keys sorted, so equal payloads hash equally. Written with a stack of its
 * own, not recursion: it hashes an idempotent write's body before the validation answer is given,
 * and a body nested 500,000 levels deep (it fits in 1 MiB) overflowed the call stack (a 500).
 * Same text as JSON.stringify with sorted keys (and as the recursive version it replaced, so the
 * hashes of stored keys are unchanged).
 */
export function canonicalJson(value: unknown): string {
  // An array or object being written: its entries (an object's defined keys, sorted) and the next one.
  type Open = { node: Record<string, unknown> | unknown[]; keys: string[] | null; next: number };
  const open: Open[] = [];
  let out = '';
  const write = (v: unknown) => {
    if (v === null || typeof v !== 'object') out += JSON.stringify(v) ?? 'null';
    else if (Array.isArray(v)) ((out += '['), open.push({ node: v, keys: null, next: 0 }));
    else {
      const node = v as Record<string, unknown>;
      const keys = Object.keys(node)
        .sort()
        .filter((k) => node[k] !== undefined);
      out += '{';
      open.push({ node, keys, next: 0 });
    }
  };
  write(value);
  while (open.length) {
    const top = open[open.length - 1];
    const length = top.keys ? top.keys.length : top.node.length;
    if (top.next === length) {
      out += top.keys ? '}' : ']';
      open.pop();
      continue;
    }
    const i = top.next++;
    if (i > 0) out += ',';
    if (top.keys) {
      out += `${JSON.stringify(top.keys[i])}:`;
      write((top.node as Record<string, unknown>)[top.keys[i]]);
    } else write((top.node as unknown[])[i]);
  }
  return out;
}
