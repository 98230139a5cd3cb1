import { DOMAIN_NAMES, type DomainName } from '../shared/domain-names.js';
import type { DomainModule } from './domain.js';

/**
 * The domains' modules, loaded from the one list of their names (shared/domain-names.ts): the module of domain `x`
 * is the `x` export of `jobs/x/module.ts`. The names are a list of constants because request and event schemas are
 * TypeBox enums built when their files load; loading the modules from that list means a domain is named in one
 * place. Only the entry points read this, through MODULES (jobs/modules.ts): the engine gets the registry built
 * from it and imports no module, so a module may import the engine.
 */
async function loadDomain(name: DomainName): Promise<DomainModule> {
  const exports = (await import(`./${name}/module.js`)) as Record<string, DomainModule | undefined>;
  const domain = exports[name];
  if (domain?.name !== name) throw new Error(`jobs/${name}/module.ts must export the ${name} domain as \`${name}\``);
  return domain;
}

export const DOMAINS: readonly DomainModule[] = await Promise.all(DOMAIN_NAMES.map(loadDomain));
