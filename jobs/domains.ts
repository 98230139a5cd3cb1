import { benchmark } from './benchmark/module.js';
import { bridge } from './bridge/module.js';
import { cicd } from './cicd/module.js';
import { delivery } from './delivery/module.js';
import { environment } from './environment/module.js';
import { hunt } from './hunt/module.js';
import { incident } from './incident/module.js';
import { kubernetes } from './kubernetes/module.js';
import { migration } from './migration/module.js';
import { pay } from './pay/module.js';
import { proxy } from './proxy/module.js';
import { resolve } from './resolve/module.js';
import { security } from './security/module.js';

/**
 * The one list of domains. Only the entry points read it, through MODULES
 * (jobs/modules.ts): the engine gets the registry built from it and imports
 * no module, so a module may import the engine. Adding a domain is its folder,
 * a line here, its name in shared/domain-names.ts (and a migration when it stores data).
 */
export const DOMAINS = [
  hunt,
  resolve,
  bridge,
  proxy,
  pay,
  environment,
  cicd,
  kubernetes,
  incident,
  migration,
  security,
  delivery,
  benchmark,
] as const;
