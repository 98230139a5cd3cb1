/**
 * The audit module's registration (its routes, the engine hook it provides): only the module lists
 * (jobs/domains.ts, jobs/modules.ts) import this file. Other modules use jobs/audit/index.ts, its public face.
 */
import type { ServiceModule } from '../module-registry.js';
import { routes } from './routes.js';
import { recordAudit } from './service.js';

export const audit: ServiceModule = { name: 'audit', routes, provides: { audit: recordAudit } };
