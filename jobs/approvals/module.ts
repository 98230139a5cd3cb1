/**
 * The approvals module's registration (its routes, the engine hooks it provides): only the module lists
 * (jobs/domains.ts, jobs/modules.ts) import this file. Other modules use jobs/approvals/index.ts, its public face.
 */
import type { ServiceModule } from '../module-registry.js';
import { authorizeApproval } from './authorize.js';
import { escalationRecipients } from './escalation.js';
import { routes } from './routes.js';

export const approvals: ServiceModule = {
  name: 'approvals',
  routes,
  provides: { authorizeApproval, escalationRecipients },
};
