import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { TSchema } from '@sinclair/typebox';
import { invalidPayload } from './errors.js';

/** One detail per failing field, the shape clients see in `details` of a 400. */
export interface FieldError {
  path: string;
  message: string;
  keyword: string;
}

function makeAjv(coerceTypes: boolean) {
  const ajv = new Ajv2020({ allErrors: true, strict: false, coerceTypes, useDefaults: true });
  (addFormats as unknown as { default: typeof addFormats }).default(ajv);
  return ajv;
}

// Bodies are validated as sent; params and query strings are coerced to the declared types.
const bodyAjv = makeAjv(false);
const stringAjv = makeAjv(true);
const cache = new WeakMap<TSchema, ValidateFunction>();
const coercingCache = new WeakMap<TSchema, ValidateFunction>();

function compile(schema: TSchema, coerce: boolean): ValidateFunction {
  const store = coerce ? coercingCache : cache;
  let fn = store.get(schema);
  if (!fn) {
    const { $id: _ignored, ...rest } = schema as TSchema & { $id?: string };
    // $id is dropped for compilation so the same schema can live in both ajv instances without id clashes.
    fn = (coerce ? stringAjv : bodyAjv).compile(rest);
    store.set(schema, fn);
  }
  return fn;
}

export function toFieldErrors(errors: ErrorObject[] | null | undefined, root = ''): FieldError[] {
  return (errors ?? []).map((e) => {
    const missing = e.keyword === 'required' ? `/${(e.params as { missingProperty: string }).missingProperty}` : '';
    return { path: `${root}${e.instancePath}${missing}` || '/', message: e.message ?? 'is invalid', keyword: e.keyword };
  });
}

/**
 * Validates `value` against a TypeBox schema (applying its defaults in place)
 * and throws `400 invalidPayload` listing every failing field.
 */
export function assertValid<T>(schema: TSchema, value: unknown, where: 'body' | 'query' | 'params' = 'body'): T {
  const fn = compile(schema, where !== 'body');
  if (!fn(value)) {
    const details = toFieldErrors(fn.errors, where === 'body' ? '' : `${where}:`);
    const first = details[0];
    throw invalidPayload(`Request ${where} is invalid: ${first ? `${first.path} ${first.message}` : 'schema mismatch'}`, details);
  }
  return value as T;
}

/** Boolean check without throwing (used for response self-checks in tests). */
export function check(schema: TSchema, value: unknown): FieldError[] {
  const fn = compile(schema, false);
  return fn(value) ? [] : toFieldErrors(fn.errors);
}
