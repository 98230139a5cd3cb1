import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Backticked snake_case names in a README's `- Tables:` (or `- Table:`) bullet, up to the next bullet. */
export function tablesOfReadme(readme: string): string[] {
  const bullet = /^- Tables?:([\s\S]*?)(?=^- |^\S|$(?![\s\S]))/m.exec(readme);
  if (!bullet) return [];
  return [...bullet[1]!.matchAll(/`([a-z][a-z0-9_]*)`/g)].map((m) => m[1]!).filter((t) => !t.includes('.'));
}

/** Table names a source text queries: knex's `db('t')`, `.from('t')`, `.join('t')`, and SQL's FROM/JOIN/INTO/UPDATE. */
export function tablesQueried(source: string, known: ReadonlySet<string>): string[] {
  const found = new Set<string>();
  const patterns = [
    /\b(?:db|trx|tx|knex)\(\s*'([a-z_]+)/g,
    /\.(?:from|join|leftJoin|into|table)\(\s*'([a-z_]+)/g,
    /\b(?:FROM|JOIN|INTO|UPDATE)\s+([a-z_]+)/g,
  ];
  for (const p of patterns) for (const m of source.matchAll(p)) if (known.has(m[1]!)) found.add(m[1]!);
  return [...found].sort();
}

function filesUnder(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = `${dir}/${e.name}`;
    if (e.isDirectory()) return filesUnder(rel);
    return rel.endsWith('.ts') ? [rel] : [];
  });
}

const MODULES = readdirSync(path.join(ROOT, 'jobs'), { withFileTypes: true })
  .filter((d) => d.isDirectory() && existsSync(path.join(ROOT, 'jobs', d.name, 'README.md')))
  .map((d) => d.name);

const OWNED = new Map(
  MODULES.map((m) => [m, [...new Set(tablesOfReadme(readFileSync(path.join(ROOT, 'jobs', m, 'README.md'), 'utf8')))]]),
);

describe('table ownership (docs/architecture.md: a module owns its SQL)', () => {
  it("each table is named by one module's README", () => {
    const owners = new Map<string, string[]>();
    for (const [m, tables] of OWNED) for (const t of tables) owners.set(t, [...(owners.get(t) ?? []), m]);
    const twice = [...owners].filter(([, ms]) => ms.length > 1).map(([t, ms]) => `${t}: ${ms.join(', ')}`);
    assert.deepEqual(twice, []);
    assert.ok(owners.has('runs') && owners.has('audit_log') && owners.has('members'), 'the READMEs name the tables');
  });

  it("no module's code queries another module's table (it calls that module's index.ts, or shared/db/)", () => {
    const known = new Set([...OWNED.values()].flat());
    const foreign = MODULES.flatMap((m) =>
      filesUnder(`jobs/${m}`).flatMap((file) =>
        tablesQueried(readFileSync(path.join(ROOT, file), 'utf8'), known)
          .filter((t) => !OWNED.get(m)!.includes(t))
          .map((t) => `${file} queries ${t}`),
      ),
    );
    assert.deepEqual(foreign, []);
  });

  describe('the checks themselves', () => {
    it('read the tables of a README bullet that wraps, and only that bullet', () => {
      const readme =
        '# x\n\n- Owns: `foo_bar`.\n- Tables: `a_b`, `c` (SQL in `repository.ts`),\n  `d_e`.\n- Routes: `f`.\n';
      assert.deepEqual(tablesOfReadme(readme), ['a_b', 'c', 'd_e']);
    });

    it('find knex and SQL uses of known tables, not English', () => {
      const known = new Set(['runs', 'members', 'tasks']);
      const src = "db('runs').where(); `SELECT 1 FROM members m JOIN tasks t`; // read from tasks of the account";
      assert.deepEqual(tablesQueried(src, known), ['members', 'runs', 'tasks']);
      assert.deepEqual(tablesQueried('// pick one from runs of the account', known), []);
    });
  });
});
