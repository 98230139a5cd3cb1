/** Account members and roles: what other modules may use. */
export { getMember, signInCandidates, tokenHolder, type SignInCandidate } from './repository.js';
export { tokenManagementRefusal } from './logic.js';
