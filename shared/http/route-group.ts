import { Type, type Static, type TSchema } from '@sinclair/typebox';
import type { Deps } from '../deps.js';
import { Id, PageQuery } from '../schemas/common.js';
import {
  defineRoute,
  type AnyRoute,
  type AuthMode,
  type PathParams,
  type RouteInput,
  type RouteSpec,
} from './route-spec.js';

/** Path parameters schema derived from `{name}` segments: each is an identifier string. */
export function pathParams(path: string): TSchema | undefined {
  const names = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
  if (names.length === 0) return undefined;
  return Type.Object(Object.fromEntries(names.map((n) => [n, Id()])));
}

type Infer<S> = S extends TSchema ? Static<S> : Record<string, never>;

type Extra<Path extends string, B, Q, A extends AuthMode> = Partial<
  Omit<RouteSpec, 'method' | 'path' | 'summary' | 'params' | 'body' | 'query' | 'handler' | 'auth'>
> & {
  list?: boolean;
  auth?: A;
  body?: B;
  query?: Q;
  handler?: (input: RouteInput<Infer<B>, PathParams<Path>, Infer<Q>, A>, deps: Deps) => Promise<unknown> | unknown;
};

/**
 * Declares the routes of one group with its tag, auth and scopes as defaults,
 * so a group file reads as a table. Path params come from the path (typed from
 * it too); list routes get the shared cursor pagination query.
 */
export function routeGroup(
  tag: string,
  defaults: { read: string[]; write: string[]; domain?: string; auth?: AuthMode },
) {
  const make = (
    method: 'GET' | 'POST',
    path: string,
    summary: string,
    extra: Extra<string, unknown, unknown, AuthMode> = {},
  ): AnyRoute => {
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
    } as RouteSpec<any, any, any, any>);
  };
  return {
    get: <const Path extends string, Q extends TSchema | undefined = undefined, const A extends AuthMode = 'bearer'>(
      path: Path,
      summary: string,
      extra?: Extra<Path, undefined, Q, A>,
    ) => make('GET', path, summary, extra as Extra<string, unknown, unknown, AuthMode>),
    post: <
      const Path extends string,
      B extends TSchema | undefined = undefined,
      Q extends TSchema | undefined = undefined,
      const A extends AuthMode = 'bearer',
    >(
      path: Path,
      summary: string,
      extra?: Extra<Path, B, Q, A>,
    ) => make('POST', path, summary, extra as Extra<string, unknown, unknown, AuthMode>),
  };
}

/** The `tools` group (readers, maps, tracers, NLP): several domains add routes to it, all under `tools:use`. */
export const toolsGroup = routeGroup('tools', { read: ['tools:use'], write: ['tools:use'] });
