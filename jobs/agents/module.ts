/**
 * The agents module's registration (its routes): only the module lists (jobs/domains.ts,
 * jobs/modules.ts) import this file. Other modules use jobs/agents/index.ts, its public face.
 */
import type { ServiceModule } from '../module-registry.js';
import { routes } from './routes.js';

export const agents: ServiceModule = { name: 'agents', routes };
