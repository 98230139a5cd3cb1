/** The policy module's public face: what other modules may use (they import only this file). */

// What other modules use (they import only this file; test/unit/module-faces.test.ts).
export {
  OutreachDecisionPage, OutreachDecisionQuery, OutreachDecisionReply, OutreachEvaluate, SuppressionCreate,
  SuppressionPage, SuppressionReply,
} from './compliance-schemas.js';
export {
  addSuppression, evaluateAndRecord, findDecisions, findSuppressions, removeSuppression,
} from './outreach-service.js';
export { PREFLIGHT_RULES, PREFLIGHT_SEVERITY, capabilityMatches, decide } from './table.js';
