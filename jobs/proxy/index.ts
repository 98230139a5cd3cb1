/** The proxy module's public face: what other modules may use (they import only this file). */

// What other modules use (they import only this file; test/unit/module-faces.test.ts).
export { ProxyOutcome, type ProxyOutcomeByReference } from './schemas.js';
export { fetchMission, submitOutcome, submitOutcomeByReference } from './service.js';
export { getMission, liveMissions, missionsLinkedTo, type MissionRow } from './repository.js';
export { LIVE_MISSION_STATUSES } from './machine.js';
export { missionView } from './view.js';
export type { Ended as MissionEnded } from './outcome.js';
// A reply a provider callback brought back (channels): attached to its mission, which it resolves when unambiguous.
export { receiveReply, type InboundReply } from './replies.js';
