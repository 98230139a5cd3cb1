import type { Static, TSchema } from '@sinclair/typebox';
import type { Readable } from 'node:stream';
import type { Deps } from '../deps.js';
import type { Principal, Transport } from '../schemas/auth.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
/** `sandboxOrBearer`: a bearer token, or none when the body's conversationId starts with `sandbox_`. */
export type AuthMode = 'public' | 'bearer' | 'sandboxOrBearer';

/** Bearer routes always have a caller; public routes may have one (a valid token sent anyway). */
export type PrincipalFor<A extends AuthMode> = A extends 'public' ? Principal | null : Principal;

/** `/v1/runs/{runId}/events` → `{ runId: string }`: path parameters typed from the path itself. */
type ParamNames<S extends string> = S extends `${string}{${infer P}}${infer Rest}` ? P | ParamNames<Rest> : never;
export type PathParams<S extends string> = { [K in ParamNames<S>]: string };

/** What a handler receives: validated input and the caller, never the Koa context. */
export interface RouteInput<B, P, Q, A extends AuthMode = AuthMode> {
  body: B;
  params: P;
  query: Q;
  principal: PrincipalFor<A>;
  headers: Readonly<Record<string, string | undefined>>;
  requestId: string;
  /** The body exactly as received over HTTP (signatures are computed over it); absent for MCP and A2A calls. */
  rawBody?: string;
  ip: string;
  /** `scheme://host` the client used (X-Forwarded-* honoured behind TRUST_PROXY), for links in answers. */
  origin: string;
  /** Aborted when the client goes away (streams stop their work). */
  signal: AbortSignal;
}

/** A handler returns plain data (200) or a Reply for another status, headers or a stream. */
export class Reply {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: Record<string, string> = {},
  ) {}
  static stream(stream: Readable, contentType: string, headers: Record<string, string> = {}) {
    return new Reply(200, stream, { 'Content-Type': contentType, 'Cache-Control': 'no-cache', ...headers });
  }
}

type Infer<S> = S extends TSchema ? Static<S> : Record<string, never>;

/** A route is data. The same table feeds Koa, OpenAPI, protocol-map, schemas and MCP tools. */
export interface RouteSpec<
  B extends TSchema | undefined = TSchema | undefined,
  P extends TSchema | undefined = TSchema | undefined,
  Q extends TSchema | undefined = TSchema | undefined,
  A extends AuthMode = AuthMode,
> {
  method: HttpMethod;
  /** OpenAPI path syntax: `/v1/runs/{runId}`. */
  path: string;
  tag: string;
  auth: A;
  /** Scopes the token must hold (all of them). */
  scopes?: string[];
  summary: string;
  description?: string;
  body?: B;
  params?: P;
  query?: Q;
  /** Response schemas by HTTP status; the error envelope is added to every route. */
  response?: Record<number, TSchema>;
  /** Counts against the unverified-account allowance and the monthly plan quota. */
  countsAsWorkflow?: boolean;
  /** Domain the route belongs to, for the protocol map. */
  domain?: string;
  /** MCP tool name; set on routes exposed as tools over POST /mcp. */
  mcpTool?: string;
  /**
   * Set on a transport's own endpoint (POST /mcp, POST /a2a): a token narrowed to other transports is refused there.
   * Default `http`.
   */
  transport?: Transport;
  /** Issue that delivers the handler; such routes answer 501 notImplemented until then. */
  pendingIssue?: number;
  /**
   * Also takes `application/x-www-form-urlencoded` (providers' callbacks): the form's fields as an object of strings
   * (a repeated field as a list), the raw body kept for the signature. Other routes read every body as JSON.
   */
  formBody?: boolean;
  /**
   * The largest body it reads, when that is more than MAX_BODY_BYTES (a route taking files: the inbox's answers).
   * Every other route stays within MAX_BODY_BYTES; the body reader's cap is the largest of the two.
   */
  maxBodyBytes?: number;
  /** Produces a non-JSON body (streams); idempotent replay does not apply. */
  streams?: boolean;
  /**
   * Its success response carries a secret shown once (a token, a signing
   * secret): an Idempotency-Key records only its status, never the body, and
   * a replay answers 409 saying the secret was shown once.
   */
  returnsSecret?: boolean;
  handler?: (input: RouteInput<Infer<B>, Infer<P>, Infer<Q>, A>, deps: Deps) => Promise<unknown> | unknown;
}

export type AnyRoute = RouteSpec<any, any, any, any>;

/** Identity helper that keeps the handler's input typed from the schemas. */
export function defineRoute<
  B extends TSchema | undefined = undefined,
  P extends TSchema | undefined = undefined,
  Q extends TSchema | undefined = undefined,
  const A extends AuthMode = AuthMode,
>(spec: RouteSpec<B, P, Q, A>): AnyRoute {
  return spec as AnyRoute;
}
