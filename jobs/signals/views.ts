import { iso } from '../../shared/db/knex.js';
import { grantView } from '../automation/index.js';
import type { SignalMatchRow, SignalRow, SignalRuleRow } from './repository.js';

export function signalView(row: SignalRow) {
  return {
    signalId: row.id,
    type: row.type,
    subject: row.subject,
    value: row.value,
    source: row.source,
    sourceId: row.source_id,
    observedAt: iso(row.observed_at)!,
    receivedAt: iso(row.created_at)!,
  };
}

export function matchView(row: SignalMatchRow) {
  return {
    matchId: row.id,
    ruleId: row.rule_id,
    subject: row.subject,
    outcome: row.outcome,
    runId: row.run_id,
    reason: row.reason,
    at: iso(row.updated_at)!,
  };
}

export function ruleView(row: SignalRuleRow) {
  return {
    ruleId: row.id,
    name: row.name,
    signalType: row.signal_type,
    condition: row.condition,
    target: row.target,
    status: row.status,
    dedupWindowSeconds: row.dedup_window_seconds,
    maxRunsPerHour: row.max_runs_per_hour,
    ...grantView(row),
    createdAt: iso(row.created_at)!,
    updatedAt: iso(row.updated_at)!,
  };
}
