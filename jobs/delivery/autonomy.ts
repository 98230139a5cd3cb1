/**
 * Bounded autonomy, decided without I/O: which of the actions a run needs
 * an explicit grant allows. Everything fails closed: autonomy off, an
 * action not granted, an action the grant reserves for a person, a command
 * without `allowCommands`, or a budget (`maxActions`) that runs out each
 * leave the action to a person, and one such action rests the run.
 */

export interface AutonomyGrant {
  enabled: boolean;
  allowedActions?: string[];
  allowCommands?: boolean;
  maxActions?: number;
  dryRun?: boolean;
  workdir?: string;
  requireApproval?: string[];
}

export const REFUSALS = [
  'autonomyDisabled',
  'actionNotGranted',
  'approvalRequired',
  'commandsNotAllowed',
  'budgetExhausted',
  'needsPerson',
] as const;
export type Refusal = (typeof REFUSALS)[number];

export interface ProposedAction {
  action: string;
  /** Runs a command on a machine (environment setup): needs `allowCommands`. */
  command?: string | null;
  /** Can never be delegated (a secret's value comes from a person). */
  personOnly?: string;
}

export interface ActionDecision {
  action: string;
  decision: 'autoApproved' | 'needsGrant';
  refusal?: Refusal;
  reason?: string;
  command?: string | null;
}

export interface AutonomyVerdict {
  granted: boolean;
  decisions: ActionDecision[];
  needsGrant: string[];
  reasons: string[];
  budgetUsed: number;
  maxActions: number;
  dryRun: boolean;
}

/** Budget when the grant names none: small, so an open-ended grant cannot run far. */
export const DEFAULT_MAX_ACTIONS = 5;

export function decideAutonomy(grant: AutonomyGrant | undefined, actions: ProposedAction[]): AutonomyVerdict {
  const maxActions = grant?.maxActions ?? DEFAULT_MAX_ACTIONS;
  const allowed = new Set(grant?.allowedActions ?? []);
  const reserved = new Set(grant?.requireApproval ?? []);
  let budgetUsed = 0;
  const decisions = actions.map((a): ActionDecision => {
    const refuse = (refusal: Refusal, reason: string): ActionDecision => ({
      action: a.action,
      decision: 'needsGrant',
      refusal,
      reason,
      ...(a.command !== undefined ? { command: a.command } : {}),
    });
    if (!grant?.enabled) return refuse('autonomyDisabled', 'autonomy is not enabled');
    if (a.personOnly) return refuse('needsPerson', a.personOnly);
    if (reserved.has(a.action))
      return refuse('approvalRequired', `the grant reserves ${a.action} for a person (requireApproval)`);
    if (!allowed.has(a.action)) return refuse('actionNotGranted', `${a.action} is not in allowedActions`);
    if (a.command && !grant.allowCommands)
      return refuse('commandsNotAllowed', `${a.action} runs a command and allowCommands is not set`);
    if (budgetUsed >= maxActions) return refuse('budgetExhausted', `the budget of ${maxActions} action(s) is used up`);
    budgetUsed++;
    return { action: a.action, decision: 'autoApproved', ...(a.command !== undefined ? { command: a.command } : {}) };
  });
  const refused = decisions.filter((d) => d.decision === 'needsGrant');
  return {
    granted: refused.length === 0,
    decisions,
    needsGrant: [...new Set(refused.map((d) => d.action))],
    reasons: [...new Set(refused.map((d) => d.reason!))],
    budgetUsed,
    maxActions,
    dryRun: grant?.dryRun ?? true,
  };
}

/**
 * The mode of an autonomous request when it names none: a release (service and version) is a delivery, files alone an
 * environment.
 */
export function inferMode(body: Record<string, unknown>): 'delivery' | 'environment' | null {
  if (typeof body.service === 'string' && typeof body.version === 'string') return 'delivery';
  if (body.files && typeof body.files === 'object') return 'environment';
  return null;
}
