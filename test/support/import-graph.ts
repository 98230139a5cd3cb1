import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { API } from 'typescript/unstable/sync';
import { isExportDeclaration, isImportDeclaration, isImportTypeNode, type Node } from 'typescript/unstable/ast';

/** One module reference of a project file, as the TypeScript compiler parsed it. */
export interface ImportEdge {
  /** Importing file, relative to the project root (`api/server.ts`). */
  from: string;
  line: number;
  /** The specifier as written (`../workers/lifecycle.js`, `knex`). */
  spec: string;
  /** The project file it resolves to, relative to the root; null for packages and node: builtins. */
  to: string | null;
  /** `import type`, `export type` or a type position `import('x')`: no runtime edge, still a coupling. */
  typeOnly: boolean;
}

function tsFilesUnder(root: string, dir: string): string[] {
  const abs = path.join(root, dir);
  if (!existsSync(abs)) return [];
  return readdirSync(abs).flatMap((name) => {
    const rel = path.join(dir, name);
    if (statSync(path.join(root, rel)).isDirectory()) return tsFilesUnder(root, rel);
    return rel.endsWith('.ts') && !rel.endsWith('.d.ts') ? [rel] : [];
  });
}

// ESM sources name the emitted `.js`; the file on disk is the `.ts` beside it (or a folder's index.ts).
function resolveRelative(root: string, fromRel: string, spec: string): string {
  const base = path.resolve(root, path.dirname(fromRel), spec);
  const candidates = [base.replace(/\.js$/, '.ts'), base, `${base}.ts`, path.join(base, 'index.ts')];
  const hit = candidates.find((c) => c.endsWith('.ts') && existsSync(c)) ?? candidates[0]!;
  return path.relative(root, hit).split(path.sep).join('/');
}

function isTypeOnly(ref: Node): boolean {
  const parent = ref.parent;
  if (isImportDeclaration(parent)) {
    const clause = parent.importClause as unknown as
      | { isTypeOnly?: boolean; name?: unknown; namedBindings?: { elements?: Array<{ isTypeOnly?: boolean }> } }
      | undefined;
    if (!clause) return false; // a side-effect import runs the module
    if (clause.isTypeOnly) return true;
    const elements = clause.namedBindings?.elements;
    return !clause.name && Array.isArray(elements) && elements.length > 0 && elements.every((e) => e.isTypeOnly);
  }
  if (isExportDeclaration(parent)) return Boolean((parent as unknown as { isTypeOnly?: boolean }).isTypeOnly);
  return isImportTypeNode(parent) || (parent.parent !== undefined && isImportTypeNode(parent.parent));
}

/**
 * Every import, export-from and dynamic `import()` of the `.ts` files under
 * `dirs`, read from the compiler's own parse of the project (tsconfig.json),
 * so strings and comments that look like imports are never counted.
 */
export function loadImportGraph(root: string, dirs: string[]): { files: string[]; edges: ImportEdge[] } {
  const files = dirs
    .flatMap((d) => tsFilesUnder(root, d))
    .map((f) => f.split(path.sep).join('/'))
    .sort();
  const api = new API({ cwd: root });
  try {
    const snapshot = api.updateSnapshot({ openProjects: [path.join(root, 'tsconfig.json')] });
    const program = snapshot.getProjects()[0]!.program;
    const edges: ImportEdge[] = [];
    for (const file of files) {
      const sf = program.getSourceFile(path.join(root, file));
      if (!sf) throw new Error(`${file} is not part of the tsconfig.json program, so its imports cannot be checked`);
      const lineStarts = sf.getLineStarts();
      for (const ref of sf.imports) {
        const spec = (ref as unknown as { text: string }).text;
        const start = ref.getStart(sf);
        const line = lineStarts.findLastIndex((s) => s <= start) + 1;
        edges.push({
          from: file,
          line,
          spec,
          to: spec.startsWith('.') ? resolveRelative(root, file, spec) : null,
          typeOnly: isTypeOnly(ref),
        });
      }
    }
    return { files, edges };
  } finally {
    api.close();
  }
}

export const describeEdge = (e: ImportEdge) =>
  `${e.from}:${e.line} imports '${e.spec}'${e.to ? ` (${e.to})` : ''}${e.typeOnly ? ' [type-only]' : ''}`;

/**
 * Import cycles among project files, one path per strongly connected
 * component (Tarjan), each written `a.ts -> b.ts -> a.ts`.
 */
export function findCycles(edges: ImportEdge[]): string[][] {
  const next = new Map<string, string[]>();
  for (const e of edges) if (e.to) next.set(e.from, [...(next.get(e.from) ?? []), e.to]);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  let counter = 0;
  const visit = (v: string) => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      const selfLoop = (next.get(v) ?? []).includes(v);
      if (component.length > 1 || selfLoop) components.push(component);
    }
  };
  for (const v of [...next.keys()].sort()) if (!index.has(v)) visit(v);
  return components.map((c) => cyclePath(new Set(c), next));
}

// A concrete path through the component, starting at its first file by name, so the message is stable.
function cyclePath(members: Set<string>, next: Map<string, string[]>): string[] {
  const start = [...members].sort()[0]!;
  const prev = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const v = queue.shift()!;
    for (const w of (next.get(v) ?? []).filter((x) => members.has(x)).sort()) {
      if (w === start) {
        const pathBack = [v];
        while (pathBack[0] !== start) pathBack.unshift(prev.get(pathBack[0]!)!);
        return [...pathBack, start];
      }
      if (!prev.has(w)) {
        prev.set(w, v);
        queue.push(w);
      }
    }
  }
  return [start, start];
}
