/** The kinds of approval a member gives live beside the engine, which names the gates it resolves. */
export { GATE_KINDS, type GateKind } from '../approval-gates.js';

/** Roles that set the account's approval policy and register payment issuers. */
export const GOVERNING_ROLES = ['owner', 'admin'] as const;
