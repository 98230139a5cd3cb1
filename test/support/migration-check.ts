import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Knex } from 'knex';
import { validateMigrations } from '../../jobs/migration/validate.js';
import { MIGRATION_RULES } from '../../jobs/migration/schemas.js';
import { ROOT } from './spawn.js';

/**
 * The service's own migration check (test/services/own-migrations.test.ts): each file of migrations/ is run against
 * an empty database, the SQL it sends is captured, and the migration domain's validator (jobs/migration) judges it,
 * one migration at a time (so only the tables a migration creates itself count as new: every other table is taken to
 * be live, with rows and traffic). A `block` must be answered in the file, by a comment per blocking rule:
 *
 *     // migration-safe: <rule-id>: <why it is safe here>
 *
 * or, for a file applied before the check existed, by an entry in HISTORICAL (below), which only such files may have.
 */

export const MIGRATIONS_DIR = path.join(ROOT, 'migrations');

/** The newest migration when the check was added: HISTORICAL may name no file after it. */
export const CHECKED_FROM = '20261129005000_run_events_partitions.ts';

/**
 * Files that block and were applied before the check: what they risked, said plainly. Each ran in the service's first
 * week; a database that has applied them is past the risk, and a new database runs them on empty tables. The rules
 * are listed so that a file here that starts blocking on another rule is still caught.
 */
export const HISTORICAL = new Map<string, { rules: string[]; risk: string }>([
  [
    '20261122002001_deliveries_ready_order.ts',
    { rules: ['index-without-concurrently'], risk: 'blocks writes to deliveries while the index builds' },
  ],
  [
    '20261122002002_delivery_mode.ts',
    {
      rules: ['check-without-not-valid', 'index-without-concurrently'],
      risk: 'the CHECK scans subscriptions under ACCESS EXCLUSIVE; the index blocks writes to deliveries',
    },
  ],
  [
    '20261122002003_deliveries_held.ts',
    { rules: ['index-without-concurrently'], risk: 'two index builds that block writes to deliveries' },
  ],
  [
    '20261122004700_idempotency_owner_lease.ts',
    {
      rules: ['backfill-in-schema-transaction'],
      risk: 'a DELETE over idempotency_keys in the ALTER transaction holds its ACCESS EXCLUSIVE lock for the scan',
    },
  ],
  [
    '20261122004701_event_source.ts',
    { rules: ['check-without-not-valid'], risk: 'the CHECK scans events under ACCESS EXCLUSIVE' },
  ],
  [
    '20261123000001_proof_cards_run.ts',
    { rules: ['index-without-concurrently'], risk: 'blocks writes to proof_cards while the index builds' },
  ],
  [
    '20261125001300_pay.ts',
    { rules: ['index-without-concurrently'], risk: 'runs_task blocks writes to runs while it builds' },
  ],
  [
    '20261128000100_members_audit.ts',
    {
      rules: [
        'foreign-key-without-not-valid',
        'backfill-in-schema-transaction',
        'setting-not-null',
        'index-without-concurrently',
      ],
      risk:
        'api_tokens and dashboard_sessions: foreign keys validated, backfills, SET NOT NULL scans and index builds, ' +
        'all in one transaction holding their locks',
    },
  ],
  [
    '20261128002000_credentials.ts',
    { rules: ['index-without-concurrently'], risk: 'blocks writes to connectors while the index builds' },
  ],
  [
    '20261128005000_approvals.ts',
    { rules: ['index-without-concurrently'], risk: 'blocks writes to waitpoints while the index builds' },
  ],
]);

export const migrationFiles = () =>
  fs
    .readdirSync(MIGRATIONS_DIR)
    .filter((f) => f.endsWith('.ts'))
    .sort();

/**
 * Runs a migration's `up` on `db` as knex's migrator would (in a transaction unless it says `transaction: false`) and
 * returns the SQL it sent, in order, BEGIN and COMMIT included, bindings written in as literals.
 */
export async function capturedSql(db: Knex, file: string): Promise<string> {
  const migration = await import(pathToFileURL(path.join(MIGRATIONS_DIR, file)).href);
  const sent: string[] = [];
  const listen = (q: { sql: string; bindings?: unknown[] }) => sent.push(literal(db, q.sql, q.bindings ?? []));
  db.on('query', listen);
  try {
    if (migration.config?.transaction === false) await migration.up(db);
    else await db.transaction((trx) => migration.up(trx));
  } finally {
    db.off('query', listen);
  }
  return sent.map((q) => `${q.trim().replace(/;+$/, '')};`).join('\n');
}

/** `$1`-style placeholders replaced by their values, escaped as knex escapes them. */
function literal(db: Knex, sql: string, bindings: unknown[]): string {
  if (bindings.length === 0) return sql;
  return sql.replace(/\$(\d+)/g, (all, n: string) =>
    Number(n) <= bindings.length ? db.raw('?', [bindings[Number(n) - 1] as Knex.Value]).toQuery() : all,
  );
}

/** The rules on which the SQL blocks, each with the first statement that does. */
export async function blockingRules(file: string, sql: string): Promise<Map<string, string>> {
  const result = await validateMigrations({ migrations: [{ id: file, sql }] } as never);
  const [report] = result.migrations;
  const rules = new Map<string, string>();
  for (const f of report!.findings)
    if (f.severity === 'error' && !rules.has(f.ruleId)) rules.set(f.ruleId, f.statement.text);
  if (report!.verdict === 'block' && rules.size === 0) rules.set('unlisted', `${report!.omitted} findings not listed`);
  return rules;
}

/** `// migration-safe: <rule>: <why>` comments of a migration's source. */
export function safeMarkers(source: string): Map<string, string> {
  const markers = new Map<string, string>();
  for (const m of source.matchAll(/migration-safe:\s*([a-z][a-z-]*)\s*:\s*(.*)$/gm)) markers.set(m[1]!, m[2]!.trim());
  return markers;
}

/** What is wrong with a migration's answer to the check; empty when it passes. */
export function problems(
  file: string,
  source: string,
  blocking: Map<string, string>,
  historical: typeof HISTORICAL = HISTORICAL,
): string[] {
  const out: string[] = [];
  const markers = safeMarkers(source);
  const known = historical.get(file);
  if (known && file > CHECKED_FROM)
    out.push(`${file}: only a file from before the check (${CHECKED_FROM} or older) may be historical`);
  for (const [rule, statement] of blocking) {
    if (markers.has(rule) || (known?.rules.includes(rule) && file <= CHECKED_FROM)) continue;
    out.push(
      `${file}: blocks on ${rule} at \`${statement.slice(0, 160)}\`; make it safe (see README, "Deploying a ` +
        `migration without downtime") or say why it is with a comment \`// migration-safe: ${rule}: <why>\``,
    );
  }
  for (const [rule, why] of markers) {
    if (!(MIGRATION_RULES as readonly string[]).includes(rule))
      out.push(`${file}: migration-safe names ${rule}, no rule`);
    else if (!blocking.has(rule)) out.push(`${file}: migration-safe: ${rule}, but it does not block on ${rule}`);
    if (why.length < 20) out.push(`${file}: migration-safe: ${rule} needs a reason (20 characters or more)`);
  }
  for (const rule of known?.rules ?? [])
    if (!blocking.has(rule)) out.push(`${file}: listed historical for ${rule}, on which it no longer blocks`);
  return out;
}
