/** The orchestrator module's public face: what other modules may use (they import only this file). */

// What other modules use (they import only this file; test/unit/module-faces.test.ts).
export { decideRoute } from './decide.js';
export { waitForRest } from './follow.js';
export { routeRequest } from './route.js';
export { answerRun } from './run-answer.js';
export { inRunTx, type Emit } from './run-events.js';
export { requireEffect, requireRunEffect } from './run-grant.js';
export { findRun } from './run-queries.js';
export { TERMINAL_STATUSES } from './run-state.js';
export { DomainName, OrchestratorRequest, OrchestratorResult, RunAccepted } from './schemas.js';
export { resumeRun, submitRun } from './submit.js';
export { markServed } from './served-here.js';
export { runLinks } from './views.js';
export { enqueueResumed, resolveRunWaitpoint, type ResumedRun } from './waitpoint-resume.js';
