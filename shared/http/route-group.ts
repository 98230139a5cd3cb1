import { Type, type Static, type TSchema } from '@sinclair/typebox';
import type { Deps } from '../deps.js';
import { Id, PageQuery } from '../schemas/common.js';
import { defineRoute, type AnyRoute, type AuthMode, type RouteInput, type RouteSpec } from './route-spec.js';

/** Path parameters schema derived from `{name}` segments: each is an identifier string. */
export function pathParams(path: string): TSchema | undefined {
  const names = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
  if (names.length === 0) return undefined;
  return Type.Object(Object.fromEntries(names.map((n) => [n, Id()])));
}

type Infer<S> = S extends TSchema ? Static<S> : Record<string, never>;

type Extra<B, Q> = Partial<Omit<RouteSpec, 'method' | 'path' | 'summary' | 'params' | 'body' | 'query' | 'handler'>> & {
  list?: boolean;
  body?: B;
  query?: Q;
  handler?: (input: RouteInput<Infer<B>, Record<string, string>, Infer<Q>>, deps: Deps) => Promise<unknown> | unknown;
};

/**
 * Declares the routes of one group with its tag, auth and scopes as defaults,
 * so a group file reads as a table. Path params come from the path; list
 * routes get the shared cursor pagination query.
 */
export function routeGroup(tag: string, defaults: { read: string[]; write: string[]; domain?: string; auth?: AuthMode }) {
  const make = (method: 'GET' | 'POST', path: string, summary: string, extra: Extra<unknown, unknown> = {}): AnyRoute => {
    const { list, ...rest } = extra;
    return defineRoute({
      method,
      path,
      tag,
      summary,
      auth: defaults.auth ?? 'bearer',
      scopes: method === 'GET' ? defaults.read : defaults.write,
      domain: defaults.domain,
      params: pathParams(path),
      ...(list ? { query: PageQuery } : {}),
      ...rest,
    } as RouteSpec<any, any, any>);
  };
  return {
    get: <Q extends TSchema | undefined = undefined>(path: string, summary: string, extra?: Extra<undefined, Q>) => make('GET', path, summary, extra as Extra<unknown, unknown>),
    post: <B extends TSchema | undefined = undefined, Q extends TSchema | undefined = undefined>(path: string, summary: string, extra?: Extra<B, Q>) =>
      make('POST', path, summary, extra as Extra<unknown, unknown>),
  };
}
