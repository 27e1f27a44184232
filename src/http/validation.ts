// Strict validation: unknown fields are errors, errors are reported field by field (the first
// MAX_FIELD_ERRORS of them), bodies are never coerced (query strings are: they are text by nature).
// Ajv errors become 422s with JSON pointers.
//
// Rules applied to every schema here, once, so no route can forget them:
// - every string (and every string or key inside a free-form value) must be storable text: no NUL
//   (PostgreSQL text cannot hold it) and no unpaired UTF-16 surrogate (it would be stored as
//   U+FFFD, silently changing the data);
// - free-form values nest at most MAX_DEPTH levels;
// - `uuid` is the canonical 8-4-4-4-12 hex form only, taken in lower case; `date-time` must be a real instant between
//   0001-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z (no leap second, no month 13);
// - an array over its maxItems is reported as such without validating its items, so the work per
//   request stays bounded (every array in every schema has a maxItems: see the schema test), and
//   items stop being examined in detail once MAX_FIELD_ERRORS errors are collected.
import { Ajv, type ErrorObject, type FuncKeywordDefinition, type SchemaValidateFunction, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { AppError, invalidFields, MAX_FIELD_ERRORS, type FieldError, type FieldErrorCode } from './errors.ts';
import { badCursor } from './paging.ts';

// Ajv's types for a compiled keyword's function and the context it is called with (not exported by name).
type DataValidateFunction = ReturnType<NonNullable<FuncKeywordDefinition['compile']>>;
type DataValidationCxt = NonNullable<Parameters<ValidateFunction>[1]>;

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

export const MAX_DEPTH = 32;
export const EARLIEST_INSTANT = Date.parse('0001-01-01T00:00:00.000Z');
export const LATEST_INSTANT = Date.parse('9999-12-31T23:59:59.999Z');

const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;

/** RFC 3339 date-time naming a real instant in the accepted range (as JavaScript's Date reads it). */
export function isInstant(value: string): boolean {
  const m = DATE_TIME.exec(value);
  if (!m) return false;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number);
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return false;
  const daysInMonth = new Date(Date.UTC(2000, month, 0)).getUTCDate() - (month === 2 && !isLeapYear(year) ? 1 : 0);
  if (day > daysInMonth) return false;
  if (m[8] && (Number(m[9]) > 23 || Number(m[10]) > 59)) return false;
  const instant = Date.parse(value.toUpperCase());
  return Number.isFinite(instant) && instant >= EARLIEST_INSTANT && instant <= LATEST_INSTANT;
}

const isLeapYear = (y: number) => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;

/** Text PostgreSQL can store as given: no NUL, no unpaired surrogate. */
export const isStorableText = (s: string) => !s.includes('\u0000') && s.isWellFormed();

const TEXT_MESSAGE = 'must not contain NUL (U+0000) or unpaired UTF-16 surrogates';
/** A key as one step of a JSON pointer (RFC 6901: `~` and `/` escaped). */
export const escapePointer = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');
/** Text made storable: NUL and unpaired surrogates become U+FFFD (for text we write, never for input). */
export const makeStorable = (s: string) => s.replace(/\u0000/g, '\ufffd').toWellFormed();
/** A pointer is answered (and, for idempotent writes, stored): a key it quotes must be storable too. */
const storablePointer = makeStorable;

/**
 * `lowercaseUuid` (on every `format: uuid`): a UUID sent in upper or mixed case is taken in lower
 * case, the form PostgreSQL answers with, so ids compared or looked up as strings after validation
 * (maps keyed by a row's id, sets of a key's locations) match whichever case the client used.
 */
const lowercaseUuid: SchemaValidateFunction = (_schema: unknown, data: unknown, _parent, cxt) => {
  if (typeof data === 'string' && cxt?.parentData != null && UUID.test(data)) {
    const lower = data.toLowerCase();
    if (lower !== data) (cxt.parentData as Record<string | number, unknown>)[cxt.parentDataProperty] = lower;
  }
  return true;
};

const storableText: SchemaValidateFunction = (_schema: unknown, data: unknown) => {
  if (typeof data !== 'string' || isStorableText(data)) return true;
  storableText.errors = [{ keyword: 'storableText', message: TEXT_MESSAGE, params: {} }];
  return false;
};

/**
 * `uniqueItems` of a list of values (ids, enum members): equal values by identity, in one pass.
 * Ajv's own check compares items deeply, recursing into each: two equal items nested 100,000 levels
 * deep overflowed the stack, and the answer named no field. An item that is an object or array is
 * not a value: its item rule refuses it by name. A list of UUIDs (`uniqueValues: 'uuid'`) compares
 * them in lower case, the form they are taken in (lowercaseUuid): the same id in upper and lower
 * case was merged without a word, where the same id twice was refused.
 */
const uniqueValues: SchemaValidateFunction = (schema: boolean | 'uuid', data: unknown[]) => {
  const seen = new Map<unknown, number>();
  for (let i = 0; i < data.length; i++) {
    const value = data[i];
    if (value !== null && typeof value === 'object') continue;
    const key = schema === 'uuid' && typeof value === 'string' && UUID.test(value) ? value.toLowerCase() : value;
    const j = seen.get(key);
    if (j !== undefined) {
      const same = data[j] === value ? 'identical' : 'the same UUID';
      uniqueValues.errors = [{ keyword: 'uniqueItems', message: `must NOT have duplicate items (items ## ${j} and ${i} are ${same})`, params: { i, j } }];
      return false;
    }
    seen.set(key, i);
  }
  return true;
};

/** A free-form value: every string and key storable, every number finite, at most MAX_DEPTH levels deep. Iterative. */
const storableValue: SchemaValidateFunction = (_schema: unknown, data: unknown, _parent, cxt) => {
  const errors: Partial<ErrorObject>[] = [];
  // Each entry knows its parent's pointer and its own key; its pointer is built only when it is
  // needed (an error, or an object whose children need it), not for every value of every request.
  type Entry = { value: unknown; parent: string; key: string | null; depth: number };
  const pointer = (e: Entry) => (e.key === null ? e.parent : `${e.parent}/${escapePointer(e.key)}`);
  const stack: Entry[] = [{ value: data, parent: cxt?.instancePath ?? '', key: null, depth: 0 }];
  // One past the fields listed, so that the answer can say there are more.
  while (stack.length && errors.length <= MAX_FIELD_ERRORS) {
    const entry = stack.pop()!;
    const { value, depth } = entry;
    if (typeof value === 'string') {
      if (!isStorableText(value)) errors.push({ keyword: 'storableText', instancePath: pointer(entry), message: TEXT_MESSAGE, params: {} });
    } else if (typeof value === 'number') {
      // JSON.parse reads 1e309 as Infinity, which JSON text (how a free-form value is stored) writes as null.
      if (!Number.isFinite(value)) errors.push({ keyword: 'finiteNumber', instancePath: pointer(entry), message: 'must be a finite number', params: {} });
    } else if (value !== null && typeof value === 'object') {
      const path = pointer(entry);
      if (depth >= MAX_DEPTH) {
        errors.push({ keyword: 'maxDepth', instancePath: path, message: `must not nest deeper than ${MAX_DEPTH} levels`, params: {} });
        continue;
      }
      const entries = Object.entries(value);
      for (const [k] of entries) {
        if (!isStorableText(k))
          errors.push({ keyword: 'storableText', instancePath: `${path}/${escapePointer(k)}`, message: `has a key that ${TEXT_MESSAGE}`, params: {} });
      }
      // Pushed last entry first, so entries are visited (and their errors listed) in the order sent.
      for (let i = entries.length - 1; i >= 0; i--) {
        const [k, v] = entries[i];
        if (isStorableText(k)) stack.push({ value: v, parent: path, key: k, depth: depth + 1 });
      }
    }
  }
  if (errors.length === 0) return true;
  storableValue.errors = errors;
  return false;
};

/**
 * Raw validator errors collected per request. A field can cost several (a nullable field's type
 * error comes once per branch, an unknown field as two), so the budget is well above the MAX_FIELD_ERRORS
 * fields listed: with the budget equal to it, 34 invalid nullable fields were reported as "more
 * than 100" and 40 lost six of theirs.
 */
const RAW_ERROR_BUDGET = 10 * MAX_FIELD_ERRORS;
// Errors still to collect in the request being validated (validation is synchronous: one at a time).
let budget = RAW_ERROR_BUDGET;

/**
 * `boundedItems` replaces `items`: each item is validated with every error reported while the
 * request's error budget lasts, then only for validity (stopping at the first invalid item), so
 * 50,000 wrong items cost about as much as MAX_FIELD_ERRORS of them.
 */
function boundedItems(full: Ajv, fast: Ajv) {
  return (itemSchema: object) => {
    const all = full.compile(itemSchema);
    const first = fast.compile(itemSchema);
    const validate: DataValidateFunction = (data: unknown[], cxt?: DataValidationCxt) => {
      const items = data;
      const base = cxt?.instancePath ?? '';
      const at = (i: number): DataValidationCxt => ({
        instancePath: `${base}/${i}`,
        parentData: items,
        parentDataProperty: i,
        rootData: items,
        dynamicAnchors: cxt?.dynamicAnchors ?? {},
      });
      const errors: Partial<ErrorObject>[] = [];
      let valid = true;
      for (let i = 0; i < items.length; i++) {
        if (budget > 0) {
          if (all(items[i], at(i))) continue;
          valid = false;
          for (const e of all.errors ?? []) errors.push(e);
          budget -= all.errors?.length ?? 1;
          if (budget <= 0) errors.push({ keyword: 'errorLimit', instancePath: '', message: `more than ${RAW_ERROR_BUDGET} errors`, params: {} });
        } else if (!first(items[i], at(i))) {
          valid = false;
          break;
        }
      }
      validate.errors = errors;
      return valid;
    };
    return validate;
  };
}

const knownSets = new WeakMap<string[], Set<string>>();

/** `closedProperties` replaces `additionalProperties: false`: unknown keys are listed while the budget lasts. */
const closedProperties: SchemaValidateFunction = (names: string[], data: object, _parent, cxt) => {
  let allowed = knownSets.get(names);
  if (!allowed) knownSets.set(names, (allowed = new Set(names)));
  const base = cxt?.instancePath ?? '';
  const errors: Partial<ErrorObject>[] = [];
  for (const k in data) {
    if (allowed.has(k) || !Object.hasOwn(data, k)) continue;
    if (budget <= 0) {
      errors.push({ keyword: 'errorLimit', instancePath: '', message: `more than ${RAW_ERROR_BUDGET} errors`, params: {} });
      break;
    }
    budget--;
    errors.push({ keyword: 'additionalProperties', instancePath: base, message: 'must NOT have additional properties', params: { additionalProperty: k } });
  }
  closedProperties.errors = errors;
  return errors.length === 0;
};

function makeAjvPair(coerceTypes: boolean | 'array'): Ajv {
  const make = (allErrors: boolean) => {
    // verbose: an error carries its schema's parent, where `x-pattern-message` is read (fieldError).
    const ajv = new Ajv({ removeAdditional: false, useDefaults: true, coerceTypes, allErrors, strict: false, verbose: true });
    addFormats(ajv);
    ajv.addFormat('uuid', UUID);
    ajv.addFormat('date-time', { type: 'string', validate: isInstant });
    ajv.addKeyword({ keyword: 'storableText', type: 'string', schemaType: 'boolean', errors: true, validate: storableText });
    ajv.addKeyword({ keyword: 'lowercaseUuid', type: 'string', schemaType: 'boolean', modifying: true, validate: lowercaseUuid });
    ajv.addKeyword({ keyword: 'storableValue', schemaType: 'boolean', errors: true, validate: storableValue });
    ajv.addKeyword({ keyword: 'closedProperties', type: 'object', schemaType: 'array', errors: true, validate: closedProperties });
    ajv.addKeyword({ keyword: 'uniqueValues', type: 'array', schemaType: ['boolean', 'string'], errors: true, validate: uniqueValues });
    return ajv;
  };
  const full = make(true);
  const fast = make(false);
  for (const ajv of [full, fast])
    ajv.addKeyword({ keyword: 'boundedItems', type: 'array', schemaType: 'object', errors: true, compile: boundedItems(full, fast) });
  return full;
}

const bodyAjv = makeAjvPair(false);
const queryAjv = makeAjvPair('array');

type Schema = Record<string, unknown>;
const SUBSCHEMA_LISTS = ['anyOf', 'oneOf', 'allOf', 'prefixItems'] as const;
const SUBSCHEMAS = ['items', 'additionalProperties', 'not', 'if', 'then', 'else', 'contains', 'propertyNames'] as const;
const SCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'definitions'] as const;
const ITEM_KEYWORDS = ['boundedItems', 'prefixItems', 'uniqueItems', 'uniqueValues', 'contains', 'minContains', 'maxContains'] as const;
const SCALAR_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'null']);
const isScalar = (v: unknown) => v === null || typeof v !== 'object';

/** The schema admits only scalars: a scalar type, an enum or const of scalars, or a union of those. */
function isValueSchema(schema: unknown): boolean {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return false;
  const s = schema as Schema;
  if (s.const !== undefined) return isScalar(s.const);
  if (Array.isArray(s.enum)) return s.enum.every(isScalar);
  if (Array.isArray(s.anyOf)) return s.anyOf.every(isValueSchema);
  const t = types(s);
  return t.length > 0 && t.every((x) => SCALAR_TYPES.has(x));
}

const isFreeForm = (s: Schema) =>
  s.type === undefined &&
  s.anyOf === undefined &&
  s.oneOf === undefined &&
  s.allOf === undefined &&
  s.const === undefined &&
  s.enum === undefined &&
  s.$ref === undefined &&
  s.not === undefined;
const types = (s: Schema) => [s.type].flat().filter(Boolean) as string[];

/** A copy of the schema with the rules above applied to every subschema. */
export function hardenSchema(schema: unknown): unknown {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return schema;
  const s: Schema = { ...(schema as Schema) };
  for (const k of SUBSCHEMA_LISTS) if (Array.isArray(s[k])) s[k] = (s[k] as unknown[]).map(hardenSchema);
  for (const k of SUBSCHEMAS) if (s[k] !== undefined && typeof s[k] === 'object') s[k] = hardenSchema(s[k]);
  for (const k of SCHEMA_MAPS) {
    if (s[k] && typeof s[k] === 'object') s[k] = Object.fromEntries(Object.entries(s[k] as Schema).map(([name, sub]) => [name, hardenSchema(sub)]));
  }
  const t = types(s);
  if (t.includes('string')) s.storableText = true;
  if (s.format === 'uuid') s.lowercaseUuid = true;
  // Values the schema does not describe (free-form, or extra properties of a non-strict object).
  if (isFreeForm(s) || (t.includes('object') && (s.additionalProperties === undefined || s.additionalProperties === true))) {
    s.storableValue = true;
  }
  if (s.additionalProperties === false && s.patternProperties === undefined) {
    s.closedProperties = Object.keys((s.properties as Schema | undefined) ?? {});
    delete s.additionalProperties;
  }
  // A list of values (every item a scalar) is checked for duplicates by identity (uniqueValues), UUIDs in lower case.
  if (s.uniqueItems === true && isValueSchema(s.items)) {
    s.uniqueValues = (s.items as Schema).format === 'uuid' ? 'uuid' : true;
    delete s.uniqueItems;
  }
  if (t.includes('array') && s.items && typeof s.items === 'object' && !Array.isArray(s.items)) {
    s.boundedItems = s.items;
    delete s.items;
  }
  // Items are looked at only when the array is within its bound: 100,000 items cost one error.
  if (t.includes('array') && typeof s.maxItems === 'number' && ITEM_KEYWORDS.some((k) => s[k] !== undefined)) {
    const then: Schema = {};
    for (const k of ITEM_KEYWORDS) if (s[k] !== undefined) ((then[k] = s[k]), delete s[k]);
    s.allOf = [...((s.allOf as unknown[]) ?? []), { if: { maxItems: s.maxItems }, then }];
  }
  return s;
}

export function validatorCompiler({ schema, httpPart }: { schema: object; httpPart?: string }) {
  const compiled = (httpPart === 'querystring' ? queryAjv : bodyAjv).compile(hardenSchema(schema) as object);
  const numeric = httpPart === 'querystring' ? numericParameters(schema) : [];
  const validate = Object.assign(
    (...args: unknown[]) => {
      budget = RAW_ERROR_BUDGET;
      const refused = numeric.length ? uncanonicalNumbers(numeric, args[0]) : [];
      const valid = (compiled as (...a: unknown[]) => boolean)(...args) && refused.length === 0;
      validate.errors = refused.length ? [...refused, ...(compiled.errors ?? [])] : compiled.errors;
      return valid;
    },
    { errors: null as ErrorObject[] | null | undefined, schemaEnv: compiled.schemaEnv },
  );
  return validate;
}

// Query parameters are text, which Ajv coerces with Number(): "0x10", "1e1", " 5" and "+5" all
// passed as integers. A numeric parameter must be written as JSON writes the number.
const CANONICAL = { integer: /^-?(0|[1-9]\d*)$/, number: /^-?(0|[1-9]\d*)(\.\d+)?$/ } as const;

/** The top-level parameters of a query schema typed integer or number. */
function numericParameters(schema: object): [name: string, type: keyof typeof CANONICAL][] {
  const properties = (schema as { properties?: Record<string, { type?: unknown }> }).properties ?? {};
  return Object.entries(properties).flatMap(([name, p]) =>
    p.type === 'integer' || p.type === 'number' ? [[name, p.type] as [string, keyof typeof CANONICAL]] : [],
  );
}

/** A type error for each numeric parameter sent in another spelling; such a value is removed before Ajv sees it. */
function uncanonicalNumbers(numeric: [string, keyof typeof CANONICAL][], data: unknown): ErrorObject[] {
  if (data === null || typeof data !== 'object') return [];
  const query = data as Record<string, unknown>;
  const errors: ErrorObject[] = [];
  for (const [name, type] of numeric) {
    const value = query[name];
    if (typeof value !== 'string' || CANONICAL[type].test(value)) continue;
    delete query[name];
    errors.push({
      keyword: 'type',
      instancePath: `/${escapePointer(name)}`,
      schemaPath: `#/properties/${name}/type`,
      params: { type },
      message: `must be ${type}`,
    });
  }
  return errors;
}

const KEYWORD_CODES: Record<string, FieldErrorCode> = {
  required: 'required',
  additionalProperties: 'unknown_field',
  type: 'invalid_type',
  format: 'invalid_format',
  pattern: 'invalid_format',
  enum: 'invalid_value',
  const: 'invalid_value',
  minimum: 'out_of_range',
  maximum: 'out_of_range',
  exclusiveMinimum: 'out_of_range',
  exclusiveMaximum: 'out_of_range',
  minLength: 'too_short',
  maxLength: 'too_long',
  minItems: 'too_few',
  maxItems: 'too_many',
  uniqueItems: 'duplicate',
  minProperties: 'required',
  storableText: 'invalid_text',
  maxDepth: 'too_deep',
  finiteNumber: 'out_of_range',
};

function fieldError(e: ErrorObject): FieldError {
  const params = e.params as Record<string, unknown>;
  if (e.keyword === 'required') {
    return { path: `${e.instancePath}/${escapePointer(String(params.missingProperty))}`, message: 'is required', code: 'required' };
  }
  if (e.keyword === 'additionalProperties') {
    return {
      path: storablePointer(`${e.instancePath}/${escapePointer(String(params.additionalProperty))}`),
      message: 'is not a known field',
      code: 'unknown_field',
    };
  }
  let message = e.message ?? 'is invalid';
  if (e.keyword === 'enum') message = `must be one of: ${(params.allowedValues as unknown[]).join(', ')}`;
  if (e.keyword === 'const') message = `must be ${String(params.allowedValue)}`;
  if (e.keyword === 'format' && params.format === 'date-time')
    message = 'must be an RFC 3339 date-time between 0001-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z';
  if (e.keyword === 'format' && params.format === 'uuid') message = 'must be a UUID (8-4-4-4-12 hexadecimal digits)';
  if (e.keyword === 'format' && params.format === 'email') message = 'must be an email address';
  const patternMessage = (e.parentSchema as { 'x-pattern-message'?: unknown } | undefined)?.['x-pattern-message'];
  if (e.keyword === 'pattern' && typeof patternMessage === 'string') message = patternMessage;
  return { path: storablePointer(e.instancePath || ''), message, code: KEYWORD_CODES[e.keyword] ?? 'invalid' };
}

/** Turn a Fastify validation error into the contract's answer. A bad path id is simply unknown. */
export function validationProblem(err: { validation?: ErrorObject[]; validationContext?: string }): AppError {
  if (err.validationContext === 'params') return new AppError('not_found', 'No such record.');
  const raw = err.validation ?? [];
  // Contract §2: a bad cursor is 400, however it is bad (empty, over its 1,000 characters, a NUL),
  // as a tampered one is (src/http/paging.ts).
  if (err.validationContext === 'querystring' && raw.some((e) => e.instancePath === '/cursor')) {
    return badCursor();
  }
  // anyOf/oneOf/if report their branches separately; keep the specific messages when there are any.
  const specific = raw.filter((e) => e.keyword !== 'anyOf' && e.keyword !== 'oneOf' && e.keyword !== 'if');
  const truncated = raw.some((e) => e.keyword === 'errorLimit');
  const list = (specific.length ? specific : raw).filter((e) => e.keyword !== 'errorLimit').map(fieldError);
  // A value of the right type that breaks a rule of that branch (`"a\u0000"` for string | null, a
  // bad item in an array | null) is reported by the rule alone; a value of no allowed type gets
  // one message listing the types.
  const ruleBroken = new Set<string>();
  for (const e of list) {
    if (e.code === 'invalid_type') continue;
    for (let p = e.path; ; p = p.slice(0, p.lastIndexOf('/'))) {
      if (ruleBroken.has(p)) break;
      ruleBroken.add(p);
      if (p === '') break;
    }
  }
  const typesAt = new Map<string, string[]>();
  for (const e of list) if (e.code === 'invalid_type') typesAt.set(e.path, [...(typesAt.get(e.path) ?? []), e.message.replace(/^must be /, '')]);
  // A value none of a list of constants (scopes, event types: anyOf of const) is one message naming
  // them all (it was "must be equal to constant", once per constant).
  const constsAt = new Map<string, string[]>();
  for (const e of specific) {
    if (e.keyword !== 'const') continue;
    const path = storablePointer(e.instancePath || '');
    constsAt.set(path, [...(constsAt.get(path) ?? []), String((e.params as { allowedValue: unknown }).allowedValue)]);
  }
  const seen = new Set<string>();
  const errors: FieldError[] = [];
  for (const e of list) {
    let error = e;
    if (e.code === 'invalid_type') {
      if (ruleBroken.has(e.path)) continue;
      error = { ...e, message: `must be ${[...new Set(typesAt.get(e.path))].join(' or ')}` };
    }
    const consts = constsAt.get(e.path);
    if (e.code === 'invalid_value' && consts && consts.length > 1) error = { ...e, message: `must be one of: ${consts.join(', ')}` };
    const k = `${error.path}|${error.code}|${error.message}`;
    if (seen.has(k)) continue;
    seen.add(k);
    errors.push(error);
  }
  if (errors.length === 0) errors.push({ path: '', message: 'is invalid', code: 'invalid' });
  for (const e of errors) if (e.path === '' && err.validationContext === 'body') e.message = `body ${e.message}`;
  // Over MAX_FIELD_ERRORS: invalidFields lists the first ones and says so, as for a service's checks.
  if (errors.length > MAX_FIELD_ERRORS || !truncated) return invalidFields(errors);
  const detail = errors.map((e) => `${e.path}: ${e.message}`).join('; ');
  return new AppError('validation_failed', `The check stopped after ${errors.length} invalid fields; more may follow once these are fixed. ${detail}`, errors);
}
