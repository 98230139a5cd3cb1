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

/** Largest UTC offset any zone uses; RFC 3339 allows up to 23:59, Postgres refuses past 15:59. */
const MAX_OFFSET_MINUTES = 14 * 60;

/**
 * RFC 3339 as ajv-formats checks it, narrowed to timestamps Postgres
 * accepts and answers read back: it refuses year 0000 and offsets beyond
 * ±15:59, so either one in a filter or a stored field was a 500 instead of a
 * 400; and the instant must be one a JavaScript Date holds within years
 * 0001–9999 (a leap second or an offset can carry 9999-12-31 into year 10000,
 * which Postgres would store and no answer could show as RFC 3339).
 */
function storableDateTime(rfc3339: (s: string) => boolean) {
  return (s: string): boolean => {
    if (!rfc3339(s) || s.startsWith('0000')) return false;
    const offset = /([+-])(\d\d):?(\d\d)$/.exec(s);
    if (offset && Number(offset[2]) * 60 + Number(offset[3]) > MAX_OFFSET_MINUTES) return false;
    const year = new Date(s).getUTCFullYear();
    return year >= 1 && year <= 9999;
  };
}

function makeAjv(coerceTypes: boolean, useDefaults = true) {
  const ajv = new Ajv2020({ allErrors: true, strict: false, coerceTypes, useDefaults });
  (addFormats as unknown as { default: typeof addFormats }).default(ajv);
  const rfc3339 = ajv.formats['date-time'] as {
    validate: (s: string) => boolean;
    compare: (a: string, b: string) => number | undefined;
  };
  ajv.addFormat('date-time', {
    type: 'string',
    validate: storableDateTime(rfc3339.validate),
    compare: rfc3339.compare,
  });
  return ajv;
}

type Mode = 'body' | 'string' | 'read';

// Bodies are validated as sent; params and query strings are coerced to the declared types; stored data is read without
// defaults, so reading never changes it.
const instances: Record<Mode, Ajv2020> = { body: makeAjv(false), string: makeAjv(true), read: makeAjv(false, false) };
const caches: Record<Mode, WeakMap<TSchema, ValidateFunction>> = {
  body: new WeakMap(),
  string: new WeakMap(),
  read: new WeakMap(),
};

/**
 * A copy of the schema without `$id`s. TypeBox inlines named schemas, so one
 * (ProofCard, EvidenceItem) can sit at several places of a composite schema,
 * and ajv refuses an `$id` it has seen at another place; nothing here refers
 * to a schema by its id, so dropping them changes no meaning.
 */
export function withoutIds(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutIds);
  if (!node || typeof node !== 'object') return node;
  return Object.fromEntries(
    Object.entries(node)
      .filter(([k, v]) => !(k === '$id' && typeof v === 'string'))
      .map(([k, v]) => [k, withoutIds(v)]),
  );
}

function compile(schema: TSchema, mode: Mode): ValidateFunction {
  let fn = caches[mode].get(schema);
  if (!fn) {
    fn = instances[mode].compile(withoutIds(schema) as object);
    caches[mode].set(schema, fn);
  }
  return fn;
}

/**
 * NUL anywhere, or a UTF-16 surrogate without its partner. Postgres stores
 * neither (text refuses 0x00, jsonb refuses `\u0000` and unpaired surrogate
 * escapes), so letting one through turns bad input into a 500 far from where
 * it came in; no client means either.
 */
const UNSAFE_TEXT = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const MAX_TEXT_ERRORS = 20;

/** A JSON-pointer segment, with NUL and lone surrogates spelled out so the path itself is safe to echo. */
function pointerSegment(key: string): string {
  const escaped = key.replace(/~/g, '~0').replace(/\//g, '~1');
  return UNSAFE_TEXT.test(escaped)
    ? escaped.replace(/[\u0000\ud800-\udfff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
    : escaped;
}

/**
 * Every string (keys included) in `value` holding NUL or a lone surrogate,
 * as field errors under `root`. Walks with its own stack, so a deep value
 * cannot overflow the call stack, and stops after a few findings.
 */
export function unsafeTextErrors(value: unknown, root = ''): FieldError[] {
  const found: FieldError[] = [];
  const message = 'must not contain NUL characters or unpaired UTF-16 surrogates';
  const stack: Array<[unknown, string]> = [[value, '']];
  while (stack.length > 0 && found.length < MAX_TEXT_ERRORS) {
    const [node, path] = stack.pop()!;
    if (typeof node === 'string') {
      if (UNSAFE_TEXT.test(node)) found.push({ path: `${root}${path}` || '/', message, keyword: 'wellFormedText' });
    } else if (Array.isArray(node)) {
      for (let i = node.length - 1; i >= 0; i--) stack.push([node[i], `${path}/${i}`]);
    } else if (node && typeof node === 'object') {
      const entries = Object.entries(node);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, child] = entries[i]!;
        const childPath = `${path}/${pointerSegment(key)}`;
        if (UNSAFE_TEXT.test(key))
          found.push({ path: `${root}${childPath}`, message: `key ${message}`, keyword: 'wellFormedText' });
        else stack.push([child, childPath]);
      }
    }
  }
  return found;
}

export function toFieldErrors(errors: ErrorObject[] | null | undefined, root = ''): FieldError[] {
  return (errors ?? []).map((e) => {
    const missing = e.keyword === 'required' ? `/${(e.params as { missingProperty: string }).missingProperty}` : '';
    return {
      path: `${root}${e.instancePath}${missing}` || '/',
      message: e.message ?? 'is invalid',
      keyword: e.keyword,
    };
  });
}

/**
 * Validates `value` against a TypeBox schema (applying its defaults in place)
 * and throws `400 invalidPayload` listing every failing field.
 */
export function assertValid<T>(schema: TSchema, value: unknown, where: 'body' | 'query' | 'params' = 'body'): T {
  const root = where === 'body' ? '' : `${where}:`;
  // Text is checked before the schema: a filter or id that reaches SQL with a NUL in it is a 500, not a miss.
  const unsafe = unsafeTextErrors(value, root);
  const fn = compile(schema, where === 'body' ? 'body' : 'string');
  if (unsafe.length > 0 || !fn(value)) {
    const details = unsafe.length > 0 ? unsafe : toFieldErrors(fn.errors, root);
    const first = details[0];
    throw invalidPayload(
      `Request ${where} is invalid: ${first ? `${first.path} ${first.message}` : 'schema mismatch'}`,
      details,
    );
  }
  return value as T;
}

/** Check without throwing: [] when `value` conforms (rows of an import, self-checks in tests). */
export function check(schema: TSchema, value: unknown): FieldError[] {
  const unsafe = unsafeTextErrors(value);
  if (unsafe.length > 0) return unsafe;
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
  const shown = details
    .slice(0, 5)
    .map((d) => `${d.path} ${d.message}`)
    .join('; ');
  const more = details.length > 5 ? ` (and ${details.length - 5} more)` : '';
  throw new AppError(
    'invalidPayload',
    `${what} does not match ${(schema as { $id?: string }).$id ?? 'its schema'}: ${shown}${more}`,
    details,
  );
}
