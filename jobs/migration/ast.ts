import type { ColumnDef, Constraint, Node, RangeVar, TypeName } from 'libpg-query';

/**
 * Small readers over the parser's tree (the JSON form of Postgres' own parse
 * nodes: each node is `{ NodeType: fields }`).
 */

/** The node's type name (`AlterTableStmt`, `IndexStmt`, ...). */
export function kindOf(node: Node | undefined): string {
  return node ? (Object.keys(node)[0] ?? '') : '';
}

/** The fields of `node` when it is of `kind`, else undefined. */
export function as<T>(node: Node | undefined, kind: string): T | undefined {
  return node && kind in node ? ((node as Record<string, unknown>)[kind] as T) : undefined;
}

/** `String` nodes of a list (`names`, `typeName`, `fk_attrs`) as plain strings. */
export function strings(list: Node[] | undefined): string[] {
  return (list ?? [])
    .map((n) => as<{ sval?: string }>(n, 'String')?.sval)
    .filter((s): s is string => typeof s === 'string');
}

/** `schema.table` as written (no schema when none was written). */
export function relationName(rel: RangeVar | undefined): string {
  if (!rel?.relname) return '?';
  return rel.schemaname ? `${rel.schemaname}.${rel.relname}` : rel.relname;
}

/** The type's own name, lower case, without `pg_catalog.` (`int4`, `json`, `serial`, `varchar`). */
export function typeOf(type: TypeName | undefined): string {
  const names = strings(type?.names);
  return (names[names.length - 1] ?? '').toLowerCase();
}

/** The type as a person would write it again (`bigint`, `varchar(20)`, `timestamptz`). */
export function typeText(type: TypeName | undefined): string {
  const base = typeOf(type);
  const spoken: Record<string, string> = {
    int2: 'smallint',
    int4: 'integer',
    int8: 'bigint',
    bpchar: 'char',
    float8: 'double precision',
    float4: 'real',
    bool: 'boolean',
  };
  const mods = (type?.typmods ?? [])
    .map((m) => as<{ ival?: { ival?: number } }>(m, 'A_Const')?.ival?.ival)
    .filter((v) => v !== undefined);
  return `${spoken[base] ?? base}${mods.length ? `(${mods.join(',')})` : ''}${type?.arrayBounds?.length ? '[]' : ''}`;
}

export function constraintsOf(col: ColumnDef | undefined): Constraint[] {
  return (col?.constraints ?? [])
    .map((c) => as<Constraint>(c, 'Constraint'))
    .filter((c): c is Constraint => Boolean(c));
}

/** Every object below `node` (itself included). A loop, not recursion: expressions nest thousands deep (`1+1+…`). */
export function* descendants(node: unknown): Generator<Record<string, unknown>> {
  const stack: unknown[] = [node];
  while (stack.length > 0) {
    const next = stack.pop();
    if (Array.isArray(next))
      for (const item of next) stack.push(item); // not push(...next): VALUES lists run to 100,000 rows
    else if (next && typeof next === 'object') {
      yield next as Record<string, unknown>;
      for (const value of Object.values(next)) stack.push(value);
    }
  }
}

/** Every string literal in `node` (`'archived'` in `SET status = 'archived'`). */
export function stringLiterals(node: unknown): string[] {
  const out: string[] = [];
  for (const n of descendants(node)) {
    const sval = (n.A_Const as { sval?: { sval?: string } } | undefined)?.sval?.sval;
    if (typeof sval === 'string') out.push(sval);
  }
  return out;
}

/** Function names called anywhere in `node`, lower case, without schema. */
export function calledFunctions(node: unknown): string[] {
  const out: string[] = [];
  for (const n of descendants(node)) {
    const call = n.FuncCall as { funcname?: Node[] } | undefined;
    if (call) {
      const names = strings(call.funcname);
      if (names.length) out.push(names[names.length - 1]!.toLowerCase());
    }
  }
  return out;
}

/** An identifier as SQL: bare when it is plain lower case, quoted otherwise. */
export function ident(name: string): string {
  return /^[a-z_][a-z0-9_]*$/.test(name) ? name : `"${name.replace(/"/g, '""')}"`;
}

/** The relation as SQL, each part quoted as needed. */
export function sqlRelation(rel: RangeVar | undefined): string {
  if (!rel?.relname) return '?';
  return rel.schemaname ? `${ident(rel.schemaname)}.${ident(rel.relname)}` : ident(rel.relname);
}

/** A string literal as SQL. */
export function literal(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}
