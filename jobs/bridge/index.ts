/** The bridge module's public face: what other modules may use (they import only this file). */

// What other modules use (they import only this file; test/unit/module-faces.test.ts).
export { sha256Hex } from './action-logic.js';
export {
  actionByProviderRef,
  actionsOfMission,
  actionsOfThread,
  attachThread,
  getAction,
  type ActionRow,
} from './actions-repository.js';
export { enqueueAction } from './action-jobs.js';
export { checkAction, transitionAction, writeAction, type CheckedAction } from './actions-service.js';
export { callConnector } from './connector-call.js';
// After a commit that may have settled an action (a delivery callback): the run resting on it goes on.
export { resumeRunOfAction } from './run-resume.js';
export { ACTION_STATUSES, ConnectorId } from './connector-schemas.js';
export {
  connectorsWithCapability,
  getConnector,
  getConnectorByPk,
  type ConnectorRow,
} from './connectors-repository.js';
export {
  adapterFor,
  type ProviderAdapter,
  type ProviderCallContext,
  type ProviderEvent,
  type ProviderResult,
} from './providers/index.js';
export { providerCallbackUrl } from './providers/callback-url.js';
export { readStepRequest } from './step-logic.js';
export { intentOutcome, paymentIntentNow, paymentMethodOwner, refundOutcome } from './providers/stripe.js';
export { ACTIONS } from './machines.js';
export { providerContextFor, providerContextOf } from './provider-context.js';
export { CHROMIUM_FLAGS } from './portal/browser.js';
export type { SearchHit } from './providers/search-common.js';
export { findDispatchedRun, repoOf } from './providers/github.js';
export { githubClient } from './providers/github-client.js';
export { commitGates } from './providers/github-gates.js';
export { workflowRunNow, type FailedJob, type WorkflowRunState } from './providers/github-run.js';
