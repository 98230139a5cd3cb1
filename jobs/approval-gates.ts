/**
 * The kinds of approval a member gives: the deploy gate of a delivery run,
 * a payment a pay step waits on, an autonomy grant a run acts under, a
 * mandate issued without an issuer's signature, and any other approval
 * waitpoint. The account's policy may let the submitter approve a kind.
 * Beside the engine, not in the approvals module: the engine names the gate of
 * the waitpoints it resolves and expires, and imports no module.
 */
export const GATE_KINDS = ['deploy', 'payment', 'autonomy', 'mandate', 'waitpoint'] as const;
export type GateKind = (typeof GATE_KINDS)[number];

/**
 * Whether an answer to an approval waitpoint approves: anything but an explicit refusal (fail closed: the stricter
 * check).
 */
export function answerApproves(answer: { approved?: boolean; action?: string }): boolean {
  return !(answer.approved === false || answer.action === 'reject' || answer.action === 'decline');
}

/**
 * The gate kind of an approval waitpoint: what its step named (deploy, autonomy), a payment for pay, else `waitpoint`.
 */
export function gateOfWaitpoint(wp: { domain: string; payload: Record<string, unknown> }): GateKind {
  const named = wp.payload.gate;
  if (named === 'deploy' || named === 'autonomy') return named;
  return wp.domain === 'pay' ? 'payment' : 'waitpoint';
}
