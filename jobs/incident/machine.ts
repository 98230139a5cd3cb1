import { defineMachine } from '../state-machine.js';

/**
 * Incident statuses and the moves between them (the order of INCIDENT_STATUSES in schemas.ts). `resolved` has none:
 * a resolved alert that fires again opens a new incident. A mitigated incident whose alert fires again is
 * `triggered` once more (the alerts move it; a client cannot).
 */
export const INCIDENTS = defineMachine({
  triggered: ['acknowledged', 'mitigated', 'resolved'],
  acknowledged: ['mitigated', 'resolved'],
  mitigated: ['triggered', 'resolved'],
  resolved: [],
});
