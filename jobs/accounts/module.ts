/**
 * The accounts module's registration (its routes): only the module lists (jobs/domains.ts,
 * jobs/modules.ts) import this file. Other modules use jobs/accounts/index.ts, its public face.
 */

import type { ServiceModule } from '../module-registry.js';
import { memberStanding } from './members-repository.js';
import { routes as members } from './members-routes.js';
import { routes as profiles } from './profile-routes.js';
import { routes as session } from './session-routes.js';
import { routes as tokens } from './token-routes.js';

/**
 * Profiles, members and roles, dashboard sessions and API tokens: the routes of the accounts module, and the
 * engine hook that reads a member's standing (a run's grant is re-checked against its submitter's current role).
 */
export const accounts: ServiceModule = {
  name: 'accounts',
  routes: [...profiles, ...members, ...session, ...tokens],
  provides: { memberStanding },
};
