/**
 * The tasks module's registration (its routes, the engine hooks it provides): only the module lists
 * (jobs/domains.ts, jobs/modules.ts) import this file. Other modules use jobs/tasks/index.ts, its public face.
 */
import type { ServiceModule } from '../module-registry.js';
import { getTask } from './repository.js';
import { routes } from './routes.js';
import { startTaskForRun, transitionTaskForRun } from './service.js';

export const tasks: ServiceModule = {
  name: 'tasks',
  routes,
  provides: {
    taskExists: async (db, accountId, taskId) => Boolean(await getTask(db, accountId, taskId)),
    taskRunStarted: startTaskForRun,
    taskRunReached: transitionTaskForRun,
  },
};
