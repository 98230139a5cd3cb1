/**
 * The slice of Stripe's published OpenAPI document the Stripe adapter's requests are checked against (Prism): the
 * operations it calls and every component they reference, resolved. The document itself is Stripe's (github
 * stripe/openapi); test/fixtures/providers/stripe/README.md says which version and where the slice is kept.
 *
 *   npx tsx test/support/stripe-openapi.ts <spec3.yaml|json> [out.json]   # writes the slice
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

/** What the adapter and pay call (method, path): keep in step with jobs/bridge/providers/stripe.ts. */
export const STRIPE_OPERATIONS: Array<[method: string, path: string]> = [
  ['post', '/v1/payment_intents'],
  ['get', '/v1/payment_intents/{intent}'],
  ['post', '/v1/refunds'],
  ['get', '/v1/refunds/{refund}'],
  ['get', '/v1/payment_methods/{payment_method}'],
];

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
export function sliceSpec(spec: Json, operations = STRIPE_OPERATIONS): Json {
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

/** Where the slice is read from: STRIPE_OPENAPI_SLICE, else beside the project (shared/), else the fixture folder. */
export function stripeSlicePath(root: string): string | null {
  const candidates = [
    process.env.STRIPE_OPENAPI_SLICE,
    path.join(root, '..', 'shared', 'providers', 'stripe', 'openapi.slice.json'),
    path.join(root, 'test', 'fixtures', 'providers', 'stripe', 'openapi.slice.json'),
  ];
  return candidates.find((c): c is string => Boolean(c) && fs.existsSync(c!)) ?? null;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const [from, to] = process.argv.slice(2);
  if (!from) throw new Error('usage: stripe-openapi.ts <spec3.yaml|json> [out.json]');
  const text = fs.readFileSync(from, 'utf8');
  const spec = (from.endsWith('.json') ? JSON.parse(text) : parse(text, { maxAliasCount: -1 })) as Json;
  const out = JSON.stringify(sliceSpec(spec), null, 1);
  if (to) fs.writeFileSync(to, out);
  else process.stdout.write(out);
}
