import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { modules } from '../../jobs/module-registry.js';
import { learn, routeRequest, routerVocabulary, type RouterKnowledge } from '../../jobs/orchestrator/route.js';
import { DOMAIN_NAMES } from '../../shared/domain-names.js';

/**
 * The router measured on labelled requests it was not trained on: the table of
 * test/fixtures/route-table.json (or the file ROUTE_TABLE names, same shape,
 * e.g. a held-back set), and a k-fold split of the domains' own examples.
 */
interface Labelled {
  request: string;
  route: string[];
}

const TABLE_FILE = process.env.ROUTE_TABLE ?? new URL('../fixtures/route-table.json', import.meta.url);
const TABLE: Labelled[] = JSON.parse(readFileSync(TABLE_FILE, 'utf8')) as Labelled[];
/** Exact ordered routes right on the held-out table, overall and for the requests that need several domains. */
const TABLE_FLOOR = 0.85;
const MULTI_FLOOR = 0.8;
/** Each example routed by a router trained on the other folds' examples; lower, as each fold removes training. */
const FOLDS = 5;
const FOLD_FLOOR = 0.8;

const group = (route: string[]) => (route.length > 1 ? 'several domains' : route[0]!);

function attempt(request: string, knowledge?: RouterKnowledge): string {
  try {
    return routeRequest({ request }, knowledge).route.join(' → ');
  } catch {
    return '(refused)';
  }
}

/** Accuracy per group, printed as a table; returns the misses. */
function measure(rows: Labelled[], route: (request: string) => string) {
  const per = new Map<string, { right: number; all: number }>();
  const misses: string[] = [];
  for (const { request, route: want } of rows) {
    const got = route(request);
    const tally = per.get(group(want)) ?? { right: 0, all: 0 };
    per.set(group(want), tally);
    tally.all++;
    if (got === want.join(' → ')) tally.right++;
    else misses.push(`  ${want.join(' → ')} ← got ${got}: "${request}"`);
  }
  const right = [...per.values()].reduce((a, t) => a + t.right, 0);
  const lines = [...per].map(
    ([g, t]) => `  ${g.padEnd(16)} ${`${t.right}/${t.all}`.padStart(7)}  ${pct(t.right / t.all)}`,
  );
  return { accuracy: right / rows.length, per, misses, lines };
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

describe('router accuracy on labelled requests', () => {
  it(`the table has ≥ 200 requests covering every domain and multi-domain routes (${TABLE.length})`, () => {
    assert.ok(TABLE.length >= 200);
    const single = new Set(TABLE.filter((r) => r.route.length === 1).map((r) => r.route[0]));
    assert.deepEqual(
      modules()
        .domains.filter((d) => d.routable !== false && !single.has(d.name))
        .map((d) => d.name),
      [],
      'every domain has requests of its own',
    );
    assert.ok(TABLE.filter((r) => r.route.length > 1).length >= 30, 'requests that need several domains');
    for (const r of TABLE)
      assert.ok(
        r.route.every((d) => (DOMAIN_NAMES as readonly string[]).includes(d)),
        r.request,
      );
  });

  it('no request of the table is a training example (the table is held out)', () => {
    const trained = new Set(
      Object.values(routerVocabulary().examples)
        .flat()
        .map((e) => e.toLowerCase().trim()),
    );
    assert.deepEqual(
      TABLE.filter((r) => trained.has(r.request.toLowerCase().trim())).map((r) => r.request),
      [],
    );
  });

  it(`routes the held-out table: ≥ ${pct(TABLE_FLOOR)} exact routes, ≥ ${pct(MULTI_FLOOR)} of multi-domain`, () => {
    const m = measure(TABLE, (request) => attempt(request));
    console.log(`\n  route table (${TABLE.length} requests): ${pct(m.accuracy)}\n${m.lines.join('\n')}`);
    if (m.misses.length > 0) console.log(`  misses:\n${m.misses.join('\n')}`);
    assert.ok(m.accuracy >= TABLE_FLOOR, `accuracy ${pct(m.accuracy)} < ${pct(TABLE_FLOOR)}`);
    const multi = m.per.get('several domains');
    assert.ok(multi && multi.right / multi.all >= MULTI_FLOOR, `multi-domain ${multi?.right}/${multi?.all}`);
  });

  it(`routes each domain's examples when trained on the other folds (${FOLDS}-fold, ≥ ${pct(FOLD_FLOOR)})`, () => {
    const domains = modules().domains;
    const rows: Array<Labelled & { fold: number }> = domains.flatMap((d) =>
      d.vocabulary.examples.map((request, i) => ({ request, route: [d.name], fold: i % FOLDS })),
    );
    const routed = new Map<string, string>();
    for (let fold = 0; fold < FOLDS; fold++) {
      const knowledge = learn(
        domains.map((d) => ({
          name: d.name,
          vocabulary: { ...d.vocabulary, examples: d.vocabulary.examples.filter((_, i) => i % FOLDS !== fold) },
        })),
      );
      for (const r of rows.filter((x) => x.fold === fold)) routed.set(r.request, attempt(r.request, knowledge));
    }
    const m = measure(rows, (request) => routed.get(request)!);
    console.log(`\n  ${FOLDS}-fold over the examples (${rows.length}): ${pct(m.accuracy)}\n${m.lines.join('\n')}`);
    assert.ok(m.accuracy >= FOLD_FLOOR, `accuracy ${pct(m.accuracy)} < ${pct(FOLD_FLOOR)}`);
  });
});
