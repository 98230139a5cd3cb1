/** The proxy module's public face: what other modules may use (they import only this file). */

// What other modules use (they import only this file; test/unit/module-faces.test.ts).
export { type ProxyOutcomeByReference } from './schemas.js';
export { submitOutcomeByReference } from './service.js';
export { missionsLinkedTo } from './repository.js';
// A reply a provider callback brought back (channels): attached to its mission, which it resolves when unambiguous.
export { receiveReply, type InboundReply } from './replies.js';
