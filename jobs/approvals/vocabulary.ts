/**
 * The kinds of approval a member gives: the deploy gate of a delivery run,
 * a payment a pay step waits on, an autonomy grant a run acts under, a
 * mandate issued without an issuer's signature, and any other approval
 * waitpoint. The account's policy may let the submitter approve a kind.
 */
export const GATE_KINDS = ['deploy', 'payment', 'autonomy', 'mandate', 'waitpoint'] as const;
export type GateKind = (typeof GATE_KINDS)[number];

/** Roles that set the account's approval policy and register payment issuers. */
export const GOVERNING_ROLES = ['owner', 'admin'] as const;
