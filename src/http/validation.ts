// Strict validation: unknown fields are errors, every error is reported, bodies are never coerced
// (query strings are: they are text by nature). Ajv errors become 422s with JSON pointers.
import { Ajv, type ErrorObject } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { AppError, type FieldError, type FieldErrorCode, invalidFields } from './errors.ts';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

function makeAjv(coerceTypes: boolean | 'array'): Ajv {
  const ajv = new Ajv({
    removeAdditional: false,
    useDefaults: true,
    coerceTypes,
    allErrors: true,
    strict: false,
  });
  addFormats(ajv);
  return ajv;
}

const bodyAjv = makeAjv(false);
const queryAjv = makeAjv('array');

export function validatorCompiler({ schema, httpPart }: { schema: object; httpPart?: string }) {
  return (httpPart === 'querystring' ? queryAjv : bodyAjv).compile(schema);
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
};

function fieldError(e: ErrorObject): FieldError {
  const params = e.params as Record<string, unknown>;
  if (e.keyword === 'required') {
    return { path: `${e.instancePath}/${params.missingProperty}`, message: 'is required', code: 'required' };
  }
  if (e.keyword === 'additionalProperties') {
    return { path: `${e.instancePath}/${params.additionalProperty}`, message: 'is not a known field', code: 'unknown_field' };
  }
  let message = e.message ?? 'is invalid';
  if (e.keyword === 'enum') message = `must be one of: ${(params.allowedValues as unknown[]).join(', ')}`;
  return { path: e.instancePath || '', message, code: KEYWORD_CODES[e.keyword] ?? 'invalid' };
}

/** Turn a Fastify validation error into the contract's answer. A bad path id is simply unknown. */
export function validationProblem(err: { validation?: ErrorObject[]; validationContext?: string }): AppError {
  if (err.validationContext === 'params') return new AppError('not_found', 'No such record.');
  const raw = err.validation ?? [];
  // anyOf/oneOf report their branches separately; keep the specific messages when there are any.
  const specific = raw.filter((e) => e.keyword !== 'anyOf' && e.keyword !== 'oneOf' && e.keyword !== 'if');
  const list = (specific.length ? specific : raw).map(fieldError);
  const seen = new Set<string>();
  const errors = list.filter((e) => {
    const k = `${e.path}|${e.code}|${e.message}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
  if (errors.length === 0) errors.push({ path: '', message: 'is invalid', code: 'invalid' });
  for (const e of errors) if (e.path === '' && err.validationContext === 'body') e.message = `body ${e.message}`;
  return invalidFields(errors);
}
