/** The policy module's public face: what other modules may use (they import only this file). */

// What other modules use (they import only this file; test/unit/module-faces.test.ts).
export {
  OutreachDecisionPage,
  OutreachDecisionQuery,
  OutreachDecisionReply,
  OutreachEvaluate,
  SuppressionCreate,
  SuppressionPage,
  SuppressionReply,
} from './compliance-schemas.js';
export {
  addSuppression,
  evaluateAndRecord,
  findDecisions,
  findSuppressions,
  removeSuppression,
  requireOutreach,
} from './outreach-service.js';
export {
  POLICY_DOMAINS,
  POLICY_EFFECTS,
  PREFLIGHT_CHECKS,
  PREFLIGHT_STATUSES,
  type PolicyDomain,
  type PreflightCheck,
  type PreflightStatus,
} from './enums.js';
export {
  capabilityMatches,
  type CONNECTOR_RULES,
  decide,
  policyMap,
  type PolicyDecision,
  PREFLIGHT_RULES,
  PREFLIGHT_SEVERITY,
} from './table.js';
