import { routes as profiles } from './profile-routes.js';
import { routes as session } from './session-routes.js';
import { routes as tokens } from './token-routes.js';

/** Profiles, dashboard sessions and API tokens: the routes of the accounts module. */
export const routes = [...profiles, ...session, ...tokens];

// What other modules use (they import only this file; test/unit/module-faces.test.ts).
export { getAccountStanding, insertSandboxAccount } from './repository.js';
export { admitWorkflowRequest } from './workflow-allowance.js';
