import type { Db } from '../shared/db/knex.js';
import type { Deps } from '../shared/deps.js';
import type { Principal, Role } from '../shared/schemas/auth.js';
import type { GateKind } from './approval-gates.js';

/** One entry of the audit log, as the engine and the modules record it. */
export interface AuditEntry {
  accountId: string;
  memberId?: string | null;
  tokenId?: string | null;
  /** `<resource>.<verb>`, e.g. `credential.rotated`, `approval.granted`. */
  action: string;
  resourceType: string;
  resourceId?: string | null;
  /** `ok`, or `denied` for a refusal worth keeping (a self-approval, a role change refused). */
  outcome?: 'ok' | 'denied';
  /** Never a secret value: names, versions, reasons. */
  details?: Record<string, unknown>;
}

/** What is being approved: the run (or mandate) and its gate. */
export interface ApprovalSubject {
  /** `run` for a run's gate, `mandate` for a mandate issued as an approval. */
  resourceType: 'run' | 'mandate' | 'autonomyGrant';
  resourceId: string;
  /** The member who submitted the run; the one member who may not approve it (unless the policy allows the kind). */
  submittedBy: string | null;
  gate: GateKind;
  /** The step of the run that waits (its domain and index), for the record. */
  step?: { domain: string; index: number } | null;
  /** Audit details beyond the gate and step (a task, a waitpoint id). */
  details?: Record<string, unknown>;
}

export interface Approval {
  approvedBy: string;
  gate: GateKind;
  approved: boolean;
}

/** Who is told of a waitpoint near its expiry. */
export interface Escalation {
  to: string[];
  audience: 'approvers' | 'submitter' | 'admins';
}

/** A run's waitpoint appeared (the run rests at it), neared its expiry, or expired unanswered. */
export interface InboxNotice {
  accountId: string;
  event: 'created' | 'escalated' | 'expired';
  waitpoint: {
    id: string;
    kind: string;
    domain: string;
    runId: string;
    payload: Record<string, unknown>;
    expiresAt: string | null;
  };
  /** The member who submitted the run. */
  submittedBy: string | null;
}

/**
 * What the engine asks of the service modules. Each hook is provided by
 * exactly one module (its `provides`, in its module.ts); the registry
 * refuses a module list where one is missing or given twice. The engine
 * calls them through `engineHooks()` and so imports no module.
 */
export interface EngineHooks {
  /** audit: appends an entry; `db` may be the transaction of the change it records. */
  audit: (db: Db, entry: AuditEntry) => Promise<void>;
  /** approvals: the one decision of every approval (who may approve, and the record of who did). */
  authorizeApproval: (
    deps: Pick<Deps, 'db'>,
    trx: Db,
    principal: Principal,
    subject: ApprovalSubject,
    approved: boolean,
  ) => Promise<Approval>;
  /** approvals: who hears of an approval (its approvers) or a choice (its submitter, else the admins) near expiry. */
  escalationRecipients: (
    db: Db,
    wp: { accountId: string; approval: boolean; submittedBy: string | null },
  ) => Promise<Escalation>;
  /** tasks: whether the account has the task a run is submitted for. */
  taskExists: (db: Db, accountId: string, taskId: string) => Promise<boolean>;
  /** tasks: a run for the task started, in the run's insert transaction. */
  taskRunStarted: (trx: Db, accountId: string, taskId: string, runId: string) => Promise<void>;
  /** tasks: the task side of its run reaching a status; answers the webhook deliveries it queued. */
  taskRunReached: (
    trx: Db,
    accountId: string,
    taskId: string,
    runStatus: string,
    outData: Record<string, unknown>,
  ) => Promise<number>;
  /** accounts: a member's current role and status (null when removed), read whenever a run acts on its grant. */
  memberStanding: (
    db: Db,
    accountId: string,
    memberId: string,
  ) => Promise<{ id: string; role: Role; status: string } | null>;
  /**
   * inbox: writes the notifications of a waitpoint event in the transaction of that event (an outbox); returns how
   * many, and the caller wakes their sender after commit (`wakeInbox`).
   */
  inboxNotice: (trx: Db, notice: InboxNotice) => Promise<number>;
  /** inbox: wakes the notification sender for rows just committed. */
  wakeInbox: (deps: Pick<Deps, 'queues' | 'log'>) => Promise<void>;
  /** events: wakes the webhook dispatcher now (or after `delayMs`) for deliveries just committed. */
  wakeDeliveries: (deps: Pick<Deps, 'queues' | 'log'>, delayMs?: number) => Promise<void>;
}

/** Every hook by name (a Record, so the compiler refuses one left out), for the registry's completeness check. */
const EVERY_HOOK: Record<keyof EngineHooks, true> = {
  audit: true,
  authorizeApproval: true,
  escalationRecipients: true,
  taskExists: true,
  taskRunStarted: true,
  taskRunReached: true,
  memberStanding: true,
  inboxNotice: true,
  wakeInbox: true,
  wakeDeliveries: true,
};
export const ENGINE_HOOKS = Object.keys(EVERY_HOOK) as Array<keyof EngineHooks>;
