import { iso } from '../../shared/db/knex.js';
import { grantView } from '../automation/index.js';
import type { FiringRow, ScheduleRow } from './repository.js';

export function scheduleView(row: ScheduleRow) {
  return {
    scheduleId: row.id,
    name: row.name,
    cron: row.cron,
    timezone: row.timezone,
    target: row.target,
    overlap: row.overlap,
    catchUp: row.catch_up,
    status: row.status,
    nextFireAt: row.status === 'active' ? iso(row.next_fire_at) : null,
    lastFiredAt: iso(row.last_fired_at),
    ...grantView(row),
    createdAt: iso(row.created_at)!,
    updatedAt: iso(row.updated_at)!,
  };
}

export function firingView(row: FiringRow) {
  return {
    firingId: row.id,
    scheduledFor: iso(row.scheduled_for)!,
    trigger: row.trigger,
    outcome: row.outcome,
    missed: row.missed,
    runId: row.run_id,
    reason: row.reason,
    at: iso(row.updated_at)!,
  };
}
