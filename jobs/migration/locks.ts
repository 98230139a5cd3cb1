import type {
  AlterTableCmd,
  AlterTableStmt,
  DropStmt,
  IndexStmt,
  LockStmt,
  Node,
  ReindexStmt,
  VacuumStmt,
} from 'libpg-query';
import { LOCK_MODES, type LockMode } from './schemas.js';
import { as, kindOf } from './ast.js';

/**
 * The table lock each statement takes, from the Postgres documentation
 * ("Explicit Locking", and each command's page): what a finding reports as
 * `lock`, and what decides whether a lock_timeout is needed.
 */

// ALTER TABLE forms that take less than ACCESS EXCLUSIVE (ALTER TABLE's documentation lists them).
const ALTER_TABLE_LOCKS: Partial<Record<NonNullable<AlterTableCmd['subtype']>, LockMode>> = {
  AT_SetStatistics: 'SHARE UPDATE EXCLUSIVE',
  AT_ClusterOn: 'SHARE UPDATE EXCLUSIVE',
  AT_DropCluster: 'SHARE UPDATE EXCLUSIVE',
  AT_ValidateConstraint: 'SHARE UPDATE EXCLUSIVE',
  AT_AttachPartition: 'SHARE UPDATE EXCLUSIVE',
  AT_SetOptions: 'SHARE UPDATE EXCLUSIVE',
  AT_ResetOptions: 'SHARE UPDATE EXCLUSIVE',
  AT_EnableTrig: 'SHARE ROW EXCLUSIVE',
  AT_EnableAlwaysTrig: 'SHARE ROW EXCLUSIVE',
  AT_EnableReplicaTrig: 'SHARE ROW EXCLUSIVE',
  AT_DisableTrig: 'SHARE ROW EXCLUSIVE',
  AT_EnableTrigAll: 'SHARE ROW EXCLUSIVE',
  AT_DisableTrigAll: 'SHARE ROW EXCLUSIVE',
  AT_EnableTrigUser: 'SHARE ROW EXCLUSIVE',
  AT_DisableTrigUser: 'SHARE ROW EXCLUSIVE',
  AT_AlterConstraint: 'SHARE ROW EXCLUSIVE',
};

export const lockRank = (mode: LockMode | null): number => (mode ? LOCK_MODES.indexOf(mode) + 1 : 0);

export function strongest(modes: Array<LockMode | null>): LockMode | null {
  return modes.reduce<LockMode | null>((a, b) => (lockRank(b) > lockRank(a) ? b : a), null);
}

/** The lock one ALTER TABLE subcommand takes. */
export function alterCmdLock(cmd: AlterTableCmd): LockMode {
  if (
    cmd.subtype === 'AT_AddConstraint' &&
    as<{ contype?: string }>(cmd.def, 'Constraint')?.contype === 'CONSTR_FOREIGN'
  )
    return 'SHARE ROW EXCLUSIVE';
  if (cmd.subtype === 'AT_DetachPartition' && as<{ concurrent?: boolean }>(cmd.def, 'PartitionCmd')?.concurrent)
    return 'SHARE UPDATE EXCLUSIVE';
  return (cmd.subtype && ALTER_TABLE_LOCKS[cmd.subtype]) || 'ACCESS EXCLUSIVE';
}

export function alterCmds(stmt: AlterTableStmt): AlterTableCmd[] {
  return (stmt.cmds ?? [])
    .map((c) => as<AlterTableCmd>(c, 'AlterTableCmd'))
    .filter((c): c is AlterTableCmd => Boolean(c));
}

const LOCK_STMT_MODES: Record<number, LockMode> = Object.fromEntries(LOCK_MODES.map((m, i) => [i + 1, m]));

/** Whether a DefElem list (REINDEX and VACUUM options) holds `name`. */
export function hasOption(options: Node[] | undefined, name: string): boolean {
  return (options ?? []).some((o) => {
    const def = as<{ defname?: string; arg?: Node }>(o, 'DefElem');
    if (def?.defname !== name) return false;
    // `(FULL false)` turns it off.
    const arg =
      def.arg &&
      (as<{ boolval?: { boolval?: boolean } }>(def.arg, 'Boolean') ?? as<{ sval?: string }>(def.arg, 'String'));
    return !(
      arg &&
      ('boolval' in arg
        ? arg.boolval?.boolval === false
        : /^(false|off|0)$/i.test((arg as { sval?: string }).sval ?? ''))
    );
  });
}

/**
 * The strongest table lock the statement takes on existing tables, or null when it takes none that others would wait
 * for.
 */
export function statementLock(node: Node): LockMode | null {
  switch (kindOf(node)) {
    case 'AlterTableStmt':
      return strongest(alterCmds(as<AlterTableStmt>(node, 'AlterTableStmt')!).map(alterCmdLock));
    case 'IndexStmt':
      return as<IndexStmt>(node, 'IndexStmt')!.concurrent ? 'SHARE UPDATE EXCLUSIVE' : 'SHARE';
    case 'DropStmt': {
      const drop = as<DropStmt>(node, 'DropStmt')!;
      if (drop.removeType === 'OBJECT_INDEX') return drop.concurrent ? 'SHARE UPDATE EXCLUSIVE' : 'ACCESS EXCLUSIVE';
      return [
        'OBJECT_TABLE',
        'OBJECT_SCHEMA',
        'OBJECT_MATVIEW',
        'OBJECT_VIEW',
        'OBJECT_TRIGGER',
        'OBJECT_RULE',
        'OBJECT_POLICY',
      ].includes(drop.removeType ?? '')
        ? 'ACCESS EXCLUSIVE'
        : null;
    }
    case 'ReindexStmt':
      return hasOption(as<ReindexStmt>(node, 'ReindexStmt')!.params, 'concurrently')
        ? 'SHARE UPDATE EXCLUSIVE'
        : 'ACCESS EXCLUSIVE';
    case 'VacuumStmt':
      return hasOption(as<VacuumStmt>(node, 'VacuumStmt')!.options, 'full')
        ? 'ACCESS EXCLUSIVE'
        : 'SHARE UPDATE EXCLUSIVE';
    case 'ClusterStmt':
    case 'TruncateStmt':
    case 'RenameStmt':
      return 'ACCESS EXCLUSIVE';
    case 'LockStmt':
      return LOCK_STMT_MODES[as<LockStmt>(node, 'LockStmt')!.mode ?? 8] ?? 'ACCESS EXCLUSIVE';
    case 'CreateTrigStmt':
      return 'SHARE ROW EXCLUSIVE';
    case 'UpdateStmt':
    case 'DeleteStmt':
    case 'InsertStmt':
    case 'MergeStmt':
      return 'ROW EXCLUSIVE';
    default:
      return null;
  }
}
