/**
 * The one list of domains, and the closed vocabulary they declare, as constants: request and event schemas are
 * TypeBox enums built when their files load, before any entry point has handed the engine its modules
 * (jobs/module-registry.ts). jobs/domains.ts loads each named domain from `jobs/<name>/module.ts`, so adding a
 * domain is its folder and its name here. The resume actions and statuses below are checked against what the
 * modules declare (buildModuleRegistry refuses to start when they differ; test/unit/modules.test.ts).
 */
export const DOMAIN_NAMES = [
  'hunt',
  'resolve',
  'bridge',
  'proxy',
  'pay',
  'environment',
  'cicd',
  'kubernetes',
  'incident',
  'migration',
  'security',
  'delivery',
  'benchmark',
] as const;

export type DomainName = (typeof DOMAIN_NAMES)[number];

const NAMES: ReadonlySet<string> = new Set(DOMAIN_NAMES);

export function isDomain(name: string): name is DomainName {
  return NAMES.has(name);
}

/** Actions the domains' waitpoints accept (their `resumeActions`), for the resume request's enum. */
export const RESUME_ACTIONS: readonly string[] = [
  'buy',
  'contact',
  'proxyOutcome',
  'settle',
  'decline',
  'approve',
  'reject',
];

/** Run statuses the domains declare (`statuses`): resting ones, and final ones with what each counts as. */
export const DOMAIN_STATUSES: { resting: readonly string[]; final: Readonly<Record<string, 'succeeded' | 'failed'>> } =
  {
    resting: ['awaitingAction', 'awaitingRollout', 'awaitingApproval', 'awaitingCi'],
    final: {
      repaired: 'succeeded',
      rolledBack: 'failed',
      blocked: 'failed',
      delivered: 'succeeded',
      dryRun: 'succeeded',
      failed: 'failed',
    },
  };
