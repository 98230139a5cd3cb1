/**
 * The policy's closed lists: the domains it judges, the effect of a rule,
 * and the checks and outcomes of a connector preflight (whose rules live in
 * table.ts). Bridge and proxy read them through jobs/policy/index.ts, so
 * policy itself imports neither module.
 */

/** Domains whose actions the policy evaluator judges. */
export const POLICY_DOMAINS = ['bridge', 'proxy', 'pay'] as const;
export type PolicyDomain = (typeof POLICY_DOMAINS)[number];
export const POLICY_EFFECTS = ['allow', 'deny'] as const;
export const PREFLIGHT_STATUSES = ['ready', 'blocked', 'needsSecret', 'unreachable'] as const;
export type PreflightStatus = (typeof PREFLIGHT_STATUSES)[number];
export const PREFLIGHT_CHECKS = ['status', 'capability', 'policy', 'scope', 'session', 'secret', 'endpoint'] as const;
export type PreflightCheck = (typeof PREFLIGHT_CHECKS)[number];
