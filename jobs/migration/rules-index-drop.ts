/** CREATE INDEX and DROP (index, table, schema, other objects) rules. */
import type { DropStmt, IndexStmt, Node, RangeVar } from 'libpg-query';
import { as, ident, sqlRelation, strings } from './ast.js';
import type { RuleContext } from './analyze.js';
import { statementLock } from './locks.js';
import { postChecks } from './post-checks.js';
import { notInTransaction, robust } from './rules-guards.js';

export function indexRules(ctx: RuleContext, s: IndexStmt): void {
  const table = sqlRelation(s.relation);
  const name = s.idxname ?? null;
  if (s.concurrent) {
    notInTransaction(ctx, 'CREATE INDEX CONCURRENTLY');
    ctx.check(postChecks.indexValid(table, name));
  } else if (!ctx.isNew(s.relation)) {
    ctx.emit('index-without-concurrently', {
      lock: 'SHARE',
      message:
        `CREATE ${s.unique ? 'UNIQUE ' : ''}INDEX${name ? ` ${name}` : ''} on ${table} blocks every INSERT, ` +
        `UPDATE and DELETE on it until the build ends`,
      safeRewrite: [
        `CREATE ${s.unique ? 'UNIQUE ' : ''}INDEX CONCURRENTLY IF NOT EXISTS ${name ? ident(name) : '…'} ON ` +
          `${table} (…);  -- outside a transaction`,
      ],
    });
  }
  robust(
    ctx,
    s.if_not_exists,
    `CREATE INDEX ${name ?? ''} without IF NOT EXISTS`.replace('  ', ' '),
    `CREATE INDEX${s.concurrent ? ' CONCURRENTLY' : ''} IF NOT EXISTS ${name ? ident(name) : '…'} ON ${table} (…);`,
  );
}

function objectNames(s: DropStmt): string[] {
  return (s.objects ?? []).map((o) => {
    const list = as<{ items?: Node[] }>(o, 'List');
    return list ? strings(list.items).join('.') : strings([o]).join('.');
  });
}

export function dropRules(ctx: RuleContext, s: DropStmt): void {
  const names = objectNames(s);
  const cascade = s.behavior === 'DROP_CASCADE';
  const lock = statementLock(ctx.stmt.node);
  switch (s.removeType) {
    case 'OBJECT_INDEX':
      if (s.concurrent) notInTransaction(ctx, 'DROP INDEX CONCURRENTLY');
      else
        ctx.emit('drop-index-without-concurrently', {
          lock,
          message:
            `DROP INDEX ${names.join(', ')} takes ACCESS EXCLUSIVE on its table: reads and writes wait until ` +
            `it is done`,
          safeRewrite: [
            `DROP INDEX CONCURRENTLY IF EXISTS ` +
              `${names.map((n) => n.split('.').map(ident).join('.')).join(', ')};  -- outside a transaction`,
          ],
        });
      break;
    case 'OBJECT_TABLE':
      for (const name of names) {
        const rel: RangeVar = name.includes('.')
          ? { schemaname: name.split('.')[0], relname: name.split('.').slice(1).join('.') }
          : { relname: name };
        if (ctx.isNew(rel)) continue;
        ctx.emit('dropping-table', {
          lock,
          message:
            `DROP TABLE ` +
            `${name}${cascade ? ' CASCADE (and every view and foreign key that depends on it)' : ''} destroys ` +
            `the table and its rows`,
          safeRewrite: [
            `-- stop every reader and writer of ${name} first; rename it (ALTER TABLE … RENAME TO ` +
              `${name}_deprecated) for a release to find stragglers`,
            `-- take and verify a backup, then: DROP TABLE IF EXISTS ${name.split('.').map(ident).join('.')};`,
          ],
        });
        ctx.check(postChecks.objectDropped(name.split('.').map(ident).join('.')));
      }
      break;
    case 'OBJECT_SCHEMA':
      ctx.emit('dropping-schema', {
        lock,
        message:
          `DROP SCHEMA ` +
          `${names.join(', ')}${
            cascade ? ' CASCADE drops every ' + 'table, view and function ' + 'in it' : ' destroys the schema'
          }`,
        safeRewrite: [
          '-- drop the objects one by one, each after its own checks, then the empty schema without CASCADE',
        ],
      });
      break;
    default:
      if (cascade)
        ctx.emit('drop-cascade', {
          lock,
          message:
            `DROP … ${names.join(', ')} CASCADE also drops every object that depends on it (columns of that ` +
            `type, views, defaults) without naming them`,
          safeRewrite: ['-- drop without CASCADE: Postgres then lists the dependents, and you decide about each'],
        });
  }
  robust(ctx, s.missing_ok, `DROP without IF EXISTS (${names.join(', ')})`, 'DROP … IF EXISTS …;');
}
