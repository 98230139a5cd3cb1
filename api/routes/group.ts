import { Type, type TSchema } from '@sinclair/typebox';
import { Id, PageQuery } from '../../shared/schemas/common.js';
import { defineRoute, type AnyRoute, type AuthMode, type RouteSpec } from './route-spec.js';

/** Path parameters schema derived from `{name}` segments: each is an identifier string. */
export function pathParams(path: string): TSchema | undefined {
  const names = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
  if (names.length === 0) return undefined;
  return Type.Object(Object.fromEntries(names.map((n) => [n, Id()])));
}

type Extra = Partial<Omit<RouteSpec, 'method' | 'path' | 'summary'>> & { list?: boolean };

/**
 * Declares the routes of one group with its tag, auth and scopes as defaults,
 * so a group file reads as a table. Path params come from the path; list
 * routes get the shared cursor pagination query.
 */
export function routeGroup(tag: string, defaults: { read: string[]; write: string[]; domain?: string; auth?: AuthMode }) {
  const make = (method: 'GET' | 'POST', path: string, summary: string, extra: Extra = {}): AnyRoute => {
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
    get: (path: string, summary: string, extra?: Extra) => make('GET', path, summary, extra),
    post: (path: string, summary: string, extra?: Extra) => make('POST', path, summary, extra),
  };
}
