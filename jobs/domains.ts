import { bridge } from './bridge/index.js';
import { cicd } from './cicd/index.js';
import { delivery } from './delivery/index.js';
import { environment } from './environment/index.js';
import { hunt } from './hunt/index.js';
import { incident } from './incident/index.js';
import { kubernetes } from './kubernetes/index.js';
import { migration } from './migration/index.js';
import { pay } from './pay/index.js';
import { proxy } from './proxy/index.js';
import { resolve } from './resolve/index.js';
import { security } from './security/index.js';

/**
 * The one list of domains. Only the entry points read it, through MODULES
 * (jobs/modules.ts): the engine gets the registry built from it and imports
 * no module, so a module may import the engine. Adding a domain is its folder,
 * a line here, its name in shared/domain-names.ts (and a migration when it stores data).
 */
export const DOMAINS = [hunt, resolve, bridge, proxy, pay, environment, cicd, kubernetes, incident, migration, security, delivery] as const;
