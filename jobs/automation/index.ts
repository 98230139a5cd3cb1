/** The automation module's public face: what other modules may use (they import only this file). */

// What other modules use (they import only this file; test/unit/module-faces.test.ts).
export { automationEvents, FIRING_OUTCOMES, FIRING_TRIGGERS, MATCH_OUTCOMES, type FiringTrigger } from './events.js';
export { GrantFields, grantView } from './grant-view.js';
export { creatorGrant, type CreatorGrant } from './grant.js';
export { startAutomatedRun } from './start-run.js';
export { RunTarget, checkTarget } from './target.js';
