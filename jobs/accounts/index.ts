/** The accounts module's public face: what other modules may use (they import only this file). */

// What other modules use (they import only this file; test/unit/module-faces.test.ts).
export { forgetPrincipals } from './authenticate.js';
export { getAccountStanding, insertSandboxAccount } from './repository.js';
export { admitWorkflowRequest, giveBackWorkflowRequest } from './workflow-allowance.js';
export { activeMembers, memberEmails, memberStanding, type MemberStanding } from './members-repository.js';
