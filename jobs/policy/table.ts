import type { PolicyDomain, PreflightCheck, PreflightStatus } from './enums.js';

/**
 * The one policy table: which capabilities each domain may use, what pay
 * requires, and the checks a connector preflight runs. The evaluator
 * (`decide`), connector preflight and `GET /v1/security/policy` all read
 * these constants, so the published map is the enforced one.
 *
 * A capability is `<area>.<verb>` (`sms.send`); a rule names capabilities
 * by the same shape with `*` for a whole part (`*.read`, `payments.*`). The
 * first rule of a domain that matches decides, and deny rules come first, so
 * an allow rule can never widen a deny; a capability no rule names is denied.
 */

export interface PolicyRule {
  id: string;
  effect: 'allow' | 'deny';
  caps: readonly string[];
  reason: string;
  /** Conditions checked where the action executes, beyond this rule (pay: a mandate). */
  requires?: readonly string[];
}

export interface DomainPolicy {
  summary: string;
  rules: readonly PolicyRule[];
}

const MONEY = ['payments.*', 'pay.*', 'transfers.*'];
// The provider adapters' message capabilities (jobs/bridge/providers/kinds.ts) beside the generic ones.
const CONTACT = [
  'voice.call',
  'sms.send',
  'messages.send',
  'email.send',
  'chat.post',
  'msg.sms',
  'msg.voice',
  'msg.email',
  'msg.chat',
];
const READ = ['*.read', '*.get', '*.list', '*.search', '*.status', '*.lookup'];

export const POLICY: Readonly<Record<PolicyDomain, DomainPolicy>> = {
  bridge: {
    summary: 'What a connector may be used for',
    rules: [
      {
        id: 'bridge.deny.money',
        effect: 'deny',
        caps: MONEY,
        reason: 'money moves only through the pay domain, under a mandate',
      },
      {
        id: 'bridge.deny.secrets',
        effect: 'deny',
        caps: ['secrets.*', 'credentials.*', 'tokens.*'],
        reason: 'secret values never leave the server: no connector may read, export or mint them',
      },
      {
        id: 'bridge.deny.destructive',
        effect: 'deny',
        caps: ['*.delete', '*.destroy', '*.purge'],
        reason: 'destructive provider actions need a person: hand them to a proxy mission',
      },
      { id: 'bridge.allow.read', effect: 'allow', caps: READ, reason: 'reading through a scoped connector' },
      {
        id: 'bridge.allow.contact',
        effect: 'allow',
        caps: CONTACT,
        reason: 'contacting people through a provider connector',
      },
      {
        id: 'bridge.allow.integration',
        effect: 'allow',
        reason: "writing to a provider within the connector's scopes",
        caps: [
          'webhook.post',
          'http.get',
          'http.post',
          'http.put',
          'ci.trigger',
          'ci.rerun',
          'incident.page',
          'tickets.create',
          'tickets.update',
          'calendar.create',
          'calendar.update',
          'contacts.sync',
          'crm.create',
          'crm.update',
          'files.upload',
        ],
      },
    ],
  },
  proxy: {
    summary: "What a human-in-the-loop mission may do on the client's behalf",
    rules: [
      {
        id: 'proxy.deny.money',
        effect: 'deny',
        caps: MONEY,
        reason: 'a mission never pays: money moves only through the pay domain, under a mandate',
      },
      {
        id: 'proxy.allow.contact',
        effect: 'allow',
        caps: CONTACT,
        reason: 'a mission may contact a person or provider for the client',
      },
      {
        id: 'proxy.allow.review',
        effect: 'allow',
        caps: ['review.request', 'logistics.book', '*.read', '*.status'],
        reason: 'a mission may ask for a review, book logistics and read what it needs',
      },
    ],
  },
  pay: {
    summary: 'What the pay domain may do with money',
    rules: [
      {
        id: 'pay.allow.mandated',
        effect: 'allow',
        caps: ['payments.settle', 'payments.quote', 'payments.refund', 'payments.status'],
        requires: ['mandate'],
        reason: 'payments within a validated mandate: settlement is refused without one and never exceeds its maxSpend',
      },
    ],
  },
};

/** Rules a named connector adds when an evaluation names one (after the domain's rule allowed the action). */
export const CONNECTOR_RULES = [
  { id: 'connector.status', effect: 'deny', reason: 'a disabled connector is not used until its owner enables it' },
  {
    id: 'connector.capability',
    effect: 'deny',
    reason: 'a connector is used only for the capabilities it was registered with',
  },
] as const;

/** What a `mandate` requirement means (the pay domain enforces it at settlement). */
export const MANDATE_REQUIREMENTS = {
  id: 'pay.mandate',
  description: 'A mandate for the task (POST /v1/pay/mandates) must exist and be valid before pay settles anything',
  constraints: ['maxSpend', 'allowedVendors', 'resolveRules'],
  failClosed: true,
} as const;

/** The checks of a connector preflight, in the order they run, and the status a failure gives. */
export const PREFLIGHT_RULES: ReadonlyArray<{
  check: PreflightCheck;
  failsWith: Exclude<PreflightStatus, 'ready'>;
  rule: string;
}> = [
  { check: 'status', failsWith: 'blocked', rule: 'the connector is active (not disabled)' },
  { check: 'capability', failsWith: 'blocked', rule: "the action is one of the connector's caps" },
  { check: 'policy', failsWith: 'blocked', rule: "the bridge policy allows the action's capability" },
  { check: 'scope', failsWith: 'blocked', rule: "one of the connector's scopes covers the action and the resource" },
  {
    check: 'session',
    failsWith: 'blocked',
    rule: 'with a sessionId: the session is live and covers the action and the resource',
  },
  {
    check: 'secret',
    failsWith: 'needsSecret',
    rule: 'every env: reference the action uses is set on the server (values are never shown)',
  },
  {
    check: 'endpoint',
    failsWith: 'unreachable',
    rule: 'with checkEndpoint: the endpoint answers through the guarded egress client',
  },
];

/** Non-ready statuses from the most to the least severe: a preflight reports the worst one it met. */
export const PREFLIGHT_SEVERITY: readonly Exclude<PreflightStatus, 'ready'>[] = [
  'blocked',
  'needsSecret',
  'unreachable',
];

/** `*.read` covers `crm.read`; `crm.*` covers `crm.update`; a part is `*` or equal. */
export function capabilityMatches(pattern: string, capability: string): boolean {
  const [pa, pv] = pattern.split('.');
  const [ca, cv] = capability.split('.');
  return (pa === '*' || pa === ca) && (pv === '*' || pv === cv);
}

export interface PolicyDecision {
  allowed: boolean;
  rule: { id: string; effect: 'allow' | 'deny' };
  reason: string;
  requires: string[];
}

/** The rule of `domain` that decides `capability`: the first that matches, else the domain's default deny. */
export function decide(domain: PolicyDomain, capability: string): PolicyDecision {
  const rule = POLICY[domain].rules.find((r) => r.caps.some((p) => capabilityMatches(p, capability)));
  if (!rule)
    return {
      allowed: false,
      rule: { id: `${domain}.default`, effect: 'deny' },
      reason: `no ${domain} rule allows ${capability}; what is not allowed is denied`,
      requires: [],
    };
  return {
    allowed: rule.effect === 'allow',
    rule: { id: rule.id, effect: rule.effect },
    reason: rule.reason,
    requires: [...(rule.requires ?? [])],
  };
}

/** The policy map as `GET /v1/security/policy` publishes it, built from the constants above. */
export function policyMap() {
  const domains = Object.fromEntries(
    Object.entries(POLICY).map(([name, p]) => [
      name,
      {
        summary: p.summary,
        allowedCapabilities: p.rules.filter((r) => r.effect === 'allow').flatMap((r) => r.caps),
        deniedCapabilities: p.rules.filter((r) => r.effect === 'deny').flatMap((r) => r.caps),
        rules: p.rules.map((r) => ({
          id: r.id,
          effect: r.effect,
          caps: [...r.caps],
          reason: r.reason,
          requires: [...(r.requires ?? [])],
        })),
        default: 'deny' as const,
      },
    ]),
  );
  return {
    domains,
    connectorRules: CONNECTOR_RULES.map((r) => ({ ...r })),
    mandateRequirements: MANDATE_REQUIREMENTS,
    preflightRules: PREFLIGHT_RULES.map((c) => ({ ...c })),
    preflightSeverity: PREFLIGHT_SEVERITY,
  };
}
