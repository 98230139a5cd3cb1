import { Type, type SchemaOptions, type Static, type TSchema, type TProperties } from '@sinclair/typebox';

/**
 * The stable error codes clients branch on. The one list: the envelope's
 * enum, `ErrorCode` in shared/errors.ts (whose ERROR_STATUS maps each to its
 * HTTP status) and the `errorCodes` of GET /v1/contract derive from it.
 */
export const ERROR_CODES = [
  'invalidPayload',
  'unauthorized',
  'forbidden',
  'notFound',
  'methodNotAllowed',
  'requestTimeout',
  'conflict',
  'payloadTooLarge',
  'unsupportedMediaType',
  'policyViolation',
  'selfApproval',
  'rateLimitExceeded',
  'quotaExceeded',
  'internalError',
  'notImplemented',
  'unavailable',
] as const;
export const ErrorCode = StringEnum(ERROR_CODES, { description: 'Stable error code' });
export type ErrorCode = Static<typeof ErrorCode>;

/** Error envelope of every failure. */
export const ErrorEnvelope = Type.Object(
  {
    ok: Type.Literal(false),
    error: ErrorCode,
    message: Type.String(),
    details: Type.Optional(Type.Unknown()),
    requestId: Type.String(),
  },
  { $id: 'ErrorEnvelope' },
);

/** `{ ok: true, ...fields }` with the given fields. */
export function Ok<P extends TProperties>(properties: P, id?: string) {
  return Type.Object({ ok: Type.Literal(true), ...properties }, id ? { $id: id } : {});
}

/** The generic success envelope of the contract routes. */
export const OkEnvelope = Type.Object({ ok: Type.Literal(true) }, { $id: 'OkEnvelope', additionalProperties: true });

/** Any JSON object: the spec's "optional object body" of contract routes. */
export const AnyObject = Type.Object({}, { additionalProperties: true });

/** The body of a POST or DELETE that reads none: any object, or nothing (its fields are ignored). */
export const EmptyBody = Type.Object(
  {},
  { $id: 'EmptyBody', additionalProperties: true, description: 'No field is read: send {} or no body' },
);

/** The answer of a removal: nothing is left to show. */
export const Deleted = Ok({}, 'Deleted');

/**
 * An http(s) URL. `format: uri` alone admits javascript:, data: and file: links, which a client would render or follow.
 */
export const HttpUrl = (description = 'An http(s) URL') =>
  Type.String({ format: 'uri', pattern: '^[Hh][Tt][Tt][Pp][Ss]?://', maxLength: 2000, description });

export const Id = (description = 'Identifier') => Type.String({ minLength: 1, maxLength: 200, description });
/** An optional reference to another record (its id), described. */
export const OptionalRef = (description: string) => Type.Optional(Id(description));
/** A non-empty string of at most `max` characters. */
export const Text = (max = 2000) => Type.String({ minLength: 1, maxLength: max });
export const Timestamp = Type.String({ format: 'date-time' });

/** Path parameter schema for a single identifier. */
export function IdParams<K extends string>(name: K) {
  return Type.Object({ [name]: Id() } as { [P in K]: ReturnType<typeof Id> });
}

/** Cursor pagination query shared by every list route. */
export const PageQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
  cursor: Type.Optional(Type.String({ maxLength: 200, description: 'nextCursor of the previous page' })),
});

/** A list response: items under `key`, plus the cursor for the next page. */
export function Page<K extends string>(key: K, item: TSchema, id?: string) {
  return Type.Object(
    { ok: Type.Literal(true), [key]: Type.Array(item), nextCursor: Type.Union([Type.String(), Type.Null()]) } as any,
    id ? { $id: id } : {},
  );
}

export const Money = Type.Object({
  amount: Type.Number({ minimum: 0 }),
  currency: Type.String({ minLength: 3, maxLength: 3, default: 'USD' }),
});

/**
 * A closed vocabulary as `{ type: 'string', enum: [...] }`: one schema that
 * validates, types the value as the union of its members, and shows clients
 * and code generators the values (a union of literals renders as anyOf/const).
 */
export function StringEnum<const T extends readonly string[]>(values: T, options: SchemaOptions = {}) {
  return Type.Unsafe<T[number]>({ ...options, type: 'string', enum: [...values] });
}

/** `T` or `null`: a field that is always present, empty as null. */
export const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);
