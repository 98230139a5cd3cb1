/** Separation of duties: who may approve what, by one decision (authorize.ts), and the account's policy. */
export { authorizeApproval, selfApprovalAllowed } from './authorize.js';
export { assertGoverning } from './service.js';
export { GATE_KINDS, type GateKind } from './vocabulary.js';

// What other modules use (they import only this file; test/unit/module-faces.test.ts).
export { selfApprovalError, separated } from './authorize.js';
