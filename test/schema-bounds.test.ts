// Every request schema of every route bounds its work: each array has maxItems and each string
// maxLength (or is a const/enum, a uuid/date-time, whose formats fix the length, or a pattern anchored
// at both ends with no unbounded repeat, such as a country code's ^[A-Z]{2}$), so one request
// cannot make validation or storage unbounded.
// Walks the router, so routes added later are held to the same rule.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t?.close());

type Schema = Record<string, unknown>;
const BOUNDED_FORMATS = ['uuid', 'date-time'];
/** ^…$ with no *, + or {n,}: every match has a bounded length. */
const BOUNDED_PATTERN = /^\^(?:[^*+{\\]|\\.|\{\d+(?:,\d+)?\})*\$$/;

/** JSON pointers (into the schema) of arrays without maxItems and strings without maxLength. */
function unbounded(schema: unknown, at: string, out: string[]) {
  if (schema === null || typeof schema !== 'object') return;
  const s = schema as Schema;
  const types = [s.type].flat();
  if (types.includes('array') && typeof s.maxItems !== 'number') out.push(`${at} (array without maxItems)`);
  if (
    types.includes('string') &&
    typeof s.maxLength !== 'number' &&
    s.const === undefined &&
    s.enum === undefined &&
    !BOUNDED_FORMATS.includes(s.format as string) &&
    !(typeof s.pattern === 'string' && BOUNDED_PATTERN.test(s.pattern))
  )
    out.push(`${at} (string without maxLength)`);
  for (const [k, v] of Object.entries(s)) {
    if (k === 'properties' || k === 'patternProperties') {
      for (const [name, sub] of Object.entries(v as Schema)) unbounded(sub, `${at}/${k}/${name}`, out);
    } else if (Array.isArray(v)) {
      v.forEach((sub, i) => unbounded(sub, `${at}/${k}/${i}`, out));
    } else if (v && typeof v === 'object' && ['items', 'additionalProperties', 'not', 'if', 'then', 'else', 'contains'].includes(k)) {
      unbounded(v, `${at}/${k}`, out);
    }
  }
}

describe('request schemas', () => {
  it('bound every array (maxItems) and every string (maxLength) on every route', () => {
    const problems: string[] = [];
    let checked = 0;
    for (const route of t.app.routeList) {
      for (const part of ['body', 'querystring', 'params', 'headers'] as const) {
        const schema = route.schema?.[part];
        if (!schema) continue;
        checked++;
        unbounded(schema, `${route.method} ${route.url} ${part}`, problems);
      }
    }
    expect(checked).toBeGreaterThan(40);
    expect(problems).toEqual([]);
  });

  it('the walker finds an unbounded array and an unbounded string', () => {
    const out: string[] = [];
    unbounded(
      { type: 'object', properties: { a: { type: 'array', items: { type: 'string', maxLength: 3 } }, b: { anyOf: [{ type: 'string' }, { type: 'null' }] } } },
      '#',
      out,
    );
    expect(out).toEqual(['#/properties/a (array without maxItems)', '#/properties/b/anyOf/0 (string without maxLength)']);
  });
});
