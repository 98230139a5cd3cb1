import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { Static, TSchema } from '@sinclair/typebox';
import { AppError, invalidPayload } from './errors.js';

/** One detail per failing field, the shape clients see in `details` of a 400. */
export interface FieldError {
  path: string;
  message: string;
  keyword: string;
}

function makeAjv(coerceTypes: boolean, useDefaults = true) {
  const ajv = new Ajv2020({ allErrors: true, strict: false, coerceTypes, useDefaults });
  (addFormats as unknown as { default: typeof addFormats }).default(ajv);
  return ajv;
}

type Mode = 'body' | 'string' | 'read';

// Bodies are validated as sent; params and query strings are coerced to the declared types; stored data is read without defaults, so reading never changes it.
const instances: Record<Mode, Ajv2020> = { body: makeAjv(false), string: makeAjv(true), read: makeAjv(false, false) };
const caches: Record<Mode, WeakMap<TSchema, ValidateFunction>> = { body: new WeakMap(), string: new WeakMap(), read: new WeakMap() };

/**
 * A copy of the schema without `$id`s. TypeBox inlines named schemas, so one
 * (ProofCard, EvidenceItem) can sit at several places of a composite schema,
 * and ajv refuses an `$id` it has seen at another place; nothing here refers
 * to a schema by its id, so dropping them changes no meaning.
 */
function withoutIds(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutIds);
  if (!node || typeof node !== 'object') return node;
  return Object.fromEntries(Object.entries(node).filter(([k, v]) => !(k === '$id' && typeof v === 'string')).map(([k, v]) => [k, withoutIds(v)]));
}

function compile(schema: TSchema, mode: Mode): ValidateFunction {
  let fn = caches[mode].get(schema);
  if (!fn) {
    fn = instances[mode].compile(withoutIds(schema) as object);
    caches[mode].set(schema, fn);
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
  const fn = compile(schema, where === 'body' ? 'body' : 'string');
  if (!fn(value)) {
    const details = toFieldErrors(fn.errors, where === 'body' ? '' : `${where}:`);
    const first = details[0];
    throw invalidPayload(`Request ${where} is invalid: ${first ? `${first.path} ${first.message}` : 'schema mismatch'}`, details);
  }
  return value as T;
}

/** Boolean check without throwing (used for response self-checks in tests). */
export function check(schema: TSchema, value: unknown): FieldError[] {
  const fn = compile(schema, 'body');
  return fn(value) ? [] : toFieldErrors(fn.errors);
}

/**
 * Reads stored data (a jsonb column, a job's data) as the type its schema
 * declares, or throws naming `what` and every failing path. The error is an
 * AppError 4xx, so `isPermanent` holds: a step fails at once with that
 * message instead of retrying data that will not change. The value is
 * returned as is (no defaults applied, no copy).
 */
export function readAs<S extends TSchema>(schema: S, value: unknown, what: string): Static<S> {
  const fn = compile(schema, 'read');
  if (fn(value)) return value as Static<S>;
  const details = toFieldErrors(fn.errors);
  const shown = details.slice(0, 5).map((d) => `${d.path} ${d.message}`).join('; ');
  const more = details.length > 5 ? ` (and ${details.length - 5} more)` : '';
  throw new AppError('invalidPayload', `${what} does not match ${(schema as { $id?: string }).$id ?? 'its schema'}: ${shown}${more}`, details);
}
